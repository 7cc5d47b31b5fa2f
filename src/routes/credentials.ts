import { publicOrigin } from "../env";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { unresolvedDisputes } from "../db/disputes";
import type { AgentRef } from "../domain/agent";
import { checkNonce, CREDENTIAL_NONCE_LIFETIME_S, mintNonce } from "../domain/credential-nonce";
import { CREDENTIAL_LIFETIME_S, issueCredential } from "../domain/credentials";
import { errors, refusalError } from "../domain/errors";
import { LIMITS } from "../domain/limits";
import type { AgentScore } from "../domain/views";
import { settle } from "../http/agent-result";
import { toAgentScore } from "../domain/views";
import { locate, operatorFacts, readAgent, agentOf } from "../http/agents";
import { authOf, requireKey } from "../http/auth";
import { granting, type AppEnv } from "../http/context";
import { contentDigestMatches, readSignatureInput, REQUIRED_COMPONENTS, verifySignature } from "../http/message-signature";
import { clientIp, consume, publicLimit } from "../http/rate-limit";
import { signingKeys } from "../http/signing-keys";
import { statusPlaceOf, statusPointer } from "../http/status-lists";
import { credentials } from "../http/wire/credentials";
import { sidParam } from "./fields";
import { sample } from "./examples";
import { createRoute, errorResponses, json, publicAccess } from "./openapi";

// Trust credentials (SD-JWT VC): POST /agents/{sid}/credential, by the agent's owner (a key with
// identity:write) or by the agent itself, signing the request with its proven key over a nonce from
// POST /agents/{sid}/credential/nonce. Identity level 2 only; 10 per hour per agent.

/** An API key, or none (the agent's signature instead). */
const keyOrNone: { [name: string]: string[] }[] = [{ bearerAuth: [] }, {}];
const SIGNED_COMPONENTS = [...REQUIRED_COMPONENTS, "content-digest"] as const;
const ownerKey = requireKey("identity:write");

/** The owner's key when the request carries one; else the agent's signature, checked by the handler. */
const ownerOrAgent: MiddlewareHandler<AppEnv> = granting({ kind: "key", scope: "identity:write", orAgentSignature: true }, async (c, next) => {
  if (c.req.header("authorization") !== undefined) {
    await ownerKey(c, next);
    return;
  }
  await next();
});

const issue = createRoute({
  method: "post",
  path: "/agents/{sid}/credential",
  operationId: "issueCredential",
  tags: ["Offline trust"],
  summary: "A selective-disclosure credential (SD-JWT VC) about the agent, bound to its proven key (owner or the agent; level 2; 10 per hour)",
  description:
    "Valid 24 hours. The owner asks with a key holding `identity:write` (a key in its rotation grace cannot: a credential outlives the " +
    "request). Or the agent asks itself, without a key: the request is signed per RFC 9421 as Web Bot Auth does, with its proven key " +
    '(`keyid` = its `identity_key`), `tag="web-bot-auth"`, `alg="ed25519"`, `created` and `expires` at most 5 minutes apart, `nonce` = a ' +
    "nonce from `POST /agents/{sid}/credential/nonce` (single use), covering `@method`, `@authority`, `@path` and `content-digest` " +
    "(RFC 9530, `sha-256` of the body, which may be empty). A suspended agent gets none (409), nor an agent below identity level 2 (409).",
  security: keyOrNone,
  middleware: [ownerOrAgent],
  request: { params: sidParam },
  responses: {
    201: json(credentials.schemas.credential, "Issued", sample.credential),
    ...errorResponses(
      400,
      errors.signatureRefused("the nonce is not one the service issued for this agent, or it was used or has expired"),
      403,
      404,
      errors.credentialNeedsLevel2(1),
      errors.tooManyCredentials(1800),
      errors.statusListsUnavailable(),
    ),
  },
});

const nonce = createRoute({
  method: "post",
  path: "/agents/{sid}/credential/nonce",
  operationId: "createCredentialNonce",
  tags: ["Offline trust"],
  summary: "A fresh nonce for the agent to sign its credential request with, within 5 minutes, once (public)",
  description: "No key: the agent asks for it itself. Nothing is stored until a signed request spends it.",
  security: publicAccess,
  middleware: [publicLimit("credentialRequest")],
  request: { params: sidParam },
  responses: {
    200: json(credentials.schemas.nonce, "Nonce", sample.credentialNonce),
    ...errorResponses(400, 404, 429, errors.attestationsNotConfigured()),
  },
});

/** A signed request counts like a nonce request, per IP: there is no key to count it by. */
const countRequest = async (c: Context<AppEnv>) => {
  const decision = await consume(c, `ip:credentialRequest:${clientIp(c)}`, [LIMITS.credentialRequest]);
  if (!decision.allowed) throw errors.rateLimited(decision.retryAfter);
};

/**
 * The agent's own request: signed with its proven key over an unspent nonce the service issued for
 * it, the body bound by Content-Digest. The nonce is spent only by a signature that verifies.
 */
async function checkAgentSignature(c: Context<AppEnv>, ref: AgentRef, agent: AgentScore): Promise<void> {
  const now = c.get("deps").now();
  const input = readSignatureInput(c.req.raw, now, SIGNED_COMPONENTS);
  if (!input.ok)
    throw input.status === 400 ? errors.invalid(`${input.problem}, or send an API key with identity:write`) : errors.signatureRefused(input.problem);
  if (!(await contentDigestMatches(c.req.raw, new Uint8Array(await c.req.arrayBuffer())))) {
    throw errors.signatureRefused("Content-Digest must be the sha-256 of the body");
  }
  const { keyid, nonce: given } = input.claims;
  if (agent.identityKey === null || keyid !== agent.identityKey) throw errors.signatureRefused("keyid must be the agent's proven key (its identity_key)");
  const keys = settle(c, ref.sid, await agentOf(c, ref).signatureKeys(ref)).keys;
  const key = keys.find((k) => k.thumbprint === keyid);
  if (!key || !(await verifySignature(c.req.raw, key.jwk))) throw errors.signatureRefused("the signature does not verify with the key keyid names");
  const issued = await checkNonce(await signingKeys(c), ref.sid, given, now);
  if (!issued.ok) throw refusalError("invalid_nonce");
  const spent = await agentOf(c, ref).spendNonce(ref, { nonce: given, expiresAt: issued.expiresAt, now });
  if (!spent.ok)
    throw spent.refusal === "invalid_nonce"
      ? errors.signatureRefused("the nonce is not one the service issued for this agent, or it was used or has expired")
      : refusalError(spent.refusal);
}

export function registerCredentials(app: OpenAPIHono<AppEnv>) {
  app.openapi(nonce, async (c) => {
    const { sid } = c.req.valid("param");
    await locate(c, sid);
    const minted = await mintNonce((await signingKeys(c))[0], sid, c.get("deps").now());
    return c.json(credentials.nonce(minted.nonce, CREDENTIAL_NONCE_LIFETIME_S), 200);
  });

  app.openapi(issue, async (c) => {
    const { sid } = c.req.valid("param");
    const byOwner = c.get("auth") !== undefined;
    if (!byOwner) await countRequest(c);
    const { ref, row } = await readAgent(c, sid);
    if (byOwner && row.operatorId !== authOf(c).operatorId) throw errors.notOwner();
    const operator = row.operatorId === null ? null : await operatorFacts(c, row.operatorId);
    const agent = toAgentScore(row, operator, c.get("deps").now());
    if (!byOwner) await checkAgentSignature(c, ref, agent);
    if (agent.status === "suspended") throw errors.suspendedCredential();
    if (agent.identityLevel !== 2 || !agent.identityKey) throw errors.credentialNeedsLevel2(agent.identityLevel);
    const decision = await consume(c, `credential:${sid}`, [LIMITS.credential]);
    if (!decision.allowed) throw errors.tooManyCredentials(decision.retryAfter);
    const [keys, place, disputes, agentKeys] = await Promise.all([
      signingKeys(c),
      statusPlaceOf(c, ref),
      unresolvedDisputes(c.get("db"), sid),
      agentOf(c, ref).signatureKeys(ref),
    ]);
    if (!place) throw errors.statusListsUnavailable();
    const jwk = settle(c, sid, agentKeys).keys.find((k) => k.thumbprint === agent.identityKey)?.jwk;
    if (!jwk) throw errors.credentialNeedsLevel2(0);
    const now = c.get("deps").now();
    const origin = publicOrigin(c.env);
    const sdJwt = await issueCredential(
      {
        origin,
        sid,
        now,
        composite: agent.score.composite,
        dimensions: agent.score.dimensions,
        recommendation: agent.score.recommendation,
        confidence: agent.score.confidence,
        identityLevel: agent.identityLevel,
        operatorName: agent.operator?.name ?? null,
        openDisputes: disputes.length,
        jwk,
        status: statusPointer(origin, place),
      },
      keys[0],
    );
    return c.json(credentials.credential(sdJwt, (Math.floor(now / 1000) + CREDENTIAL_LIFETIME_S) * 1000), 201);
  });
}
