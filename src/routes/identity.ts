import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { generateNonce } from "web-bot-auth";
import { publicEd25519, thumbprintOf, type AgentKey, type PublicJwk } from "../domain/agent-keys";
import type { AgentRef } from "../domain/agent";
import { errors, refusalError } from "../domain/errors";
import { SID_PATTERN } from "../domain/identifiers";
import { LIMITS } from "../domain/limits";
import { settle } from "../http/agent-result";
import { locate, agentOf } from "../http/agents";
import { authOf, requireKey } from "../http/auth";
import type { AppEnv } from "../http/context";
import { MAX_SIGNATURE_LIFETIME_S, readSignatureInput, verifySignature } from "../http/message-signature";
import { consume } from "../http/rate-limit";
import { identity } from "../http/wire/identity";
import { checkCallbackUrl } from "../net/callback-guard";
import { fetchKeyDirectory } from "../net/key-directory";
import { sidParam } from "./fields";
import { sample } from "./examples";
import { bearer, createRoute, errorResponses, json, jsonBody, publicAccess } from "./openapi";

// Identity level 2: the owner registers the agent's Ed25519 keys (as JWKs or a Web Bot Auth key
// directory), asks for a challenge, and the agent proves control of a key by signing a request with
// it (RFC 9421, as Web Bot Auth does) over that challenge.

/** A key directory is fetched again at a proof once its copy is this old. */
export const DIRECTORY_TTL_MS = 3_600_000;
const CHALLENGE_TTL_S = MAX_SIGNATURE_LIFETIME_S;

const thumbprintParam = z.object({
  sid: sidParam.shape.sid,
  thumbprint: z
    .string()
    .regex(/^[A-Za-z0-9_-]{43}$/, "thumbprint must be an RFC 7638 SHA-256 thumbprint (43 base64url characters)")
    .openapi({ param: { name: "thumbprint", in: "path", description: "The key's RFC 7638 thumbprint" } }),
});

const addKeys = createRoute({
  method: "post",
  path: "/agents/{sid}/keys",
  operationId: "addAgentKeys",
  tags: ["Identity"],
  summary: "Register the agent's Ed25519 public key, or every Ed25519 key of its Web Bot Auth key directory (owner, at most 5)",
  description:
    "Body: `{jwk}` (a public JWK: kty OKP, crv Ed25519, x; a private part is refused) or `{directory_url}` (HTTPS, " +
    "fetched through the same SSRF guard as callbacks, again at each proof once an hour old). Keys are named by their RFC 7638 thumbprint.",
  security: bearer,
  middleware: [requireKey("identity:write")],
  request: {
    params: sidParam,
    body: jsonBody(
      z
        .object({
          jwk: z
            .record(z.string(), z.unknown(), { error: "jwk must be a JSON object" })
            .optional()
            .openapi({ example: { kty: "OKP", crv: "Ed25519", x: "JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs" } }),
          directory_url: z
            .string({ error: "directory_url must be a valid URL" })
            .optional()
            .openapi({ example: "https://agent.example.com/.well-known/http-message-signatures-directory" }),
        })
        .openapi("AddAgentKeys"),
    ),
  },
  responses: {
    201: json(identity.schemas.keys, "Registered"),
    ...errorResponses(
      errors.invalid("Send exactly one of jwk or directory_url"),
      401,
      403,
      404,
      refusalError("too_many_keys"),
      429,
      errors.keyDirectoryFailed("the directory answered 404"),
      errors.resolverUnavailable(),
    ),
  },
});

const listKeys = createRoute({
  method: "get",
  path: "/agents/{sid}/keys",
  operationId: "listAgentKeys",
  tags: ["Identity"],
  summary: "The agent's registered keys (owner)",
  security: bearer,
  middleware: [requireKey("identity:write")],
  request: { params: sidParam },
  responses: { 200: json(identity.schemas.keys, "Keys"), ...errorResponses(400, 401, 403, 404, 429) },
});

const removeKey = createRoute({
  method: "delete",
  path: "/agents/{sid}/keys/{thumbprint}",
  operationId: "removeAgentKey",
  tags: ["Identity"],
  summary: "Remove one of the agent's keys; removing the proven key drops identity level 2 (owner)",
  security: bearer,
  middleware: [requireKey("identity:write")],
  request: { params: thumbprintParam },
  responses: { 200: json(identity.schemas.proof, "Removed", sample.keyRemoved), ...errorResponses(400, 401, 403, refusalError("key_not_found"), 429) },
});

const challenge = createRoute({
  method: "post",
  path: "/agents/{sid}/verify/signature/challenge",
  operationId: "createSignatureChallenge",
  tags: ["Identity"],
  summary: "A fresh nonce for the agent to sign within 5 minutes, once (owner)",
  security: bearer,
  middleware: [requireKey("identity:write")],
  request: { params: sidParam },
  responses: {
    200: json(
      z.object({ nonce: z.string().openapi({ description: "64 random bytes, base64: the signature's nonce" }), expires_in: z.number().int() }),
      "Challenge",
      { nonce: "BwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyAhIiMkJSYnKCkqKywtLi8wMTIzNDU2Nzg5Ojs8PT4/QEFCQ0RFRg==", expires_in: CHALLENGE_TTL_S },
    ),
    ...errorResponses(400, 401, 403, 404, 429),
  },
});

const prove = createRoute({
  method: "post",
  path: "/agents/{sid}/verify/signature",
  operationId: "proveSignature",
  tags: ["Identity"],
  summary: "The agent proves control of a registered key: an HTTP Message Signature over the challenge (no API key; 10 attempts per hour)",
  description:
    'Signed per RFC 9421 as Web Bot Auth does: `Signature-Input` with `tag="web-bot-auth"`, `keyid` = the key\'s thumbprint, ' +
    '`alg="ed25519"`, `created` and `expires` at most 5 minutes apart, `nonce` = the challenge (single use), covering at least ' +
    "`@method`, `@authority` and `@path`. Success: identity level 2 (`Signature-Verified`).",
  security: publicAccess,
  request: { params: sidParam },
  responses: {
    200: json(identity.schemas.proof, "Verified", sample.signatureProof),
    ...errorResponses(400, refusalError("invalid_nonce"), 404, errors.tooManyVerifications(1800)),
  },
});

/** Ed25519 keys of a directory (others ignored), named. */
async function directoryKeys(c: Context<AppEnv>, raw: unknown, now: number): Promise<{ url: string; keys: AgentKey[] }> {
  const resolve = c.get("deps").resolve;
  if (!resolve) throw errors.resolverUnavailable();
  const check = await checkCallbackUrl(raw, resolve, "directory_url");
  if (!check.ok) throw errors.invalid(check.message);
  const fetched = await fetchKeyDirectory(check.url, c.get("deps").fetchOutbound);
  if (!fetched.ok) throw errors.keyDirectoryFailed(fetched.reason);
  const jwks = fetched.keys.flatMap((k) => {
    const key = publicEd25519(k);
    return key.ok ? [key.jwk] : [];
  });
  return { url: check.url.href, keys: await named(jwks, check.url.href, now) };
}

const named = (jwks: PublicJwk[], directoryUrl: string | null, now: number): Promise<AgentKey[]> =>
  Promise.all(jwks.map(async (jwk) => ({ thumbprint: await thumbprintOf(jwk), jwk, directoryUrl, addedAt: new Date(now).toISOString() })));

/** The attempt is counted first (10 per hour per agent), whatever follows. */
async function countProof(c: Context<AppEnv>, sid: string) {
  const decision = await consume(c, `sigproof:${sid}`, [LIMITS.signatureProof]);
  if (!decision.allowed) throw errors.tooManyVerifications(decision.retryAfter);
}

/** The key a proof names, with its directory fetched again when its copy is an hour old. */
async function provingKey(c: Context<AppEnv>, ref: AgentRef, keyid: string, now: number) {
  const agent = agentOf(c, ref);
  const known = settle(c, ref.sid, await agent.signatureKeys(ref));
  const key = known.keys.find((k) => k.thumbprint === keyid);
  if (!key?.directoryUrl || now - (known.directories[key.directoryUrl] ?? 0) < DIRECTORY_TTL_MS) return key;
  const fresh = await directoryKeys(c, key.directoryUrl, now);
  settle(c, ref.sid, await agent.refreshDirectory(ref, { url: fresh.url, keys: fresh.keys, now }));
  return fresh.keys.find((k) => k.thumbprint === keyid);
}

export function registerIdentity(app: OpenAPIHono<AppEnv>) {
  app.openapi(addKeys, async (c) => {
    const { sid } = c.req.valid("param");
    const body = c.req.valid("json");
    const now = c.get("deps").now();
    if ((body.jwk === undefined) === (body.directory_url === undefined)) throw errors.invalid("Send exactly one of jwk or directory_url");
    const ref = await locate(c, sid);
    let keys: AgentKey[];
    let directoryUrl: string | null = null;
    if (body.jwk !== undefined) {
      const key = publicEd25519(body.jwk);
      if (!key.ok) throw errors.badJwk(key.problem);
      keys = await named([key.jwk], null, now);
    } else {
      const found = await directoryKeys(c, body.directory_url, now);
      if (found.keys.length === 0) throw errors.invalid("directory_url lists no Ed25519 key");
      keys = found.keys;
      directoryUrl = found.url;
    }
    const added = settle(c, sid, await agentOf(c, ref).addKeys(ref, { callerId: authOf(c).operatorId, keys, directoryUrl, now }));
    return c.json(identity.keys(added.keys, added.identityKey), 201);
  });

  app.openapi(listKeys, async (c) => {
    const { sid } = c.req.valid("param");
    const ref = await locate(c, sid);
    const listed = settle(c, sid, await agentOf(c, ref).listKeys(ref, authOf(c).operatorId));
    return c.json(identity.keys(listed.keys, listed.identityKey), 200);
  });

  app.openapi(removeKey, async (c) => {
    const { sid, thumbprint } = c.req.valid("param");
    const ref = await locate(c, sid);
    const out = settle(c, sid, await agentOf(c, ref).removeKey(ref, { callerId: authOf(c).operatorId, thumbprint, now: c.get("deps").now() }));
    return c.json(identity.proof("Key removed", out.identityLevel, out.identityKey), 200);
  });

  app.openapi(challenge, async (c) => {
    const { sid } = c.req.valid("param");
    const ref = await locate(c, sid);
    const now = c.get("deps").now();
    // 64 random bytes, base64: the Web Bot Auth nonce format, so agents sign with web-bot-auth as it is.
    const nonce = generateNonce();
    settle(c, sid, await agentOf(c, ref).issueNonce(ref, { callerId: authOf(c).operatorId, nonce, expiresAt: now + CHALLENGE_TTL_S * 1000, now }));
    return c.json({ nonce, expires_in: CHALLENGE_TTL_S }, 200);
  });

  app.openapi(prove, async (c) => {
    const sid = c.req.param("sid") ?? "";
    if (!SID_PATTERN.test(sid)) throw errors.invalidSid();
    const ref = await locate(c, sid);
    await countProof(c, sid);
    const now = c.get("deps").now();
    const input = readSignatureInput(c.req.raw, now);
    if (!input.ok) throw input.status === 400 ? errors.invalid(input.problem) : errors.signatureRefused(input.problem);
    const { keyid, nonce } = input.claims;
    const key = await provingKey(c, ref, keyid, now);
    if (!key) throw errors.signatureRefused("keyid is not a key registered for this agent");
    if (!(await verifySignature(c.req.raw, key.jwk))) throw errors.signatureRefused("the signature does not verify with the key keyid names");
    const out = settle(c, sid, await agentOf(c, ref).proveSignature(ref, { nonce, thumbprint: key.thumbprint, now }));
    return c.json(identity.proof("Identity verified by HTTP message signature", out.identityLevel, out.identityKey), 200);
  });
}
