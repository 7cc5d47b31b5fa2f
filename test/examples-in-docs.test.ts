// The code the guides show is the code of examples/, which the route tests run against the service:
// every function, exported constant and import shown in a guide's js blocks must appear, character
// for character, in an example file.
import { describe, expect, it } from "vitest";
import identityDoc from "../docs/identity.md?raw";
import relyingDoc from "../docs/relying-parties.md?raw";
import webBotAuth from "../examples/identity-web-bot-auth.mjs?raw";
import webCrypto from "../examples/identity-webcrypto.mjs?raw";
import receipt from "../examples/receipt.mjs?raw";
import attestation from "../examples/verify-attestation.mjs?raw";
import a2aExtension from "../examples/a2a-trust-extension.mjs?raw";
import webhook from "../examples/webhook-receiver.mjs?raw";
import credentialAgent from "../examples/credential-agent.mjs?raw";
import verifyCredential from "../examples/verify-credential.mjs?raw";
import gatewayAgent from "../examples/gateway-agent.mjs?raw";
import aiCatalog from "../examples/ai-catalog.mjs?raw";

const examples = [webBotAuth, webCrypto, receipt, attestation, a2aExtension, webhook, credentialAgent, verifyCredential, gatewayAgent, aiCatalog].join("\n");

/** Functions (from their first line to the closing brace at column 0), `export const` lines and imports. */
function declarations(doc: string): string[] {
  const blocks = [...doc.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
  const found: string[] = [];
  for (const block of blocks) {
    found.push(...[...block.matchAll(/^(?:export )?(?:async )?function [\s\S]*?\n\}$/gm)].map((m) => m[0]));
    found.push(...[...block.matchAll(/^(?:export const|import) .*$/gm)].map((m) => m[0]));
  }
  return found;
}

describe.each([
  ["docs/identity.md", identityDoc, 14],
  ["docs/relying-parties.md", relyingDoc, 11],
])("%s", (_name, doc, expected) => {
  it("shows only code that is in examples/", () => {
    const shown = declarations(doc);
    expect(shown).toHaveLength(expected);
    for (const code of shown) expect(examples, code).toContain(code);
  });
});
