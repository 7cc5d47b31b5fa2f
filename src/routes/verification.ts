import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { IDENTITY_LABELS } from "../domain/agent-keys";
import { errors, refusalError } from "../domain/errors";
import { newToken, sha256Hex, SID_PATTERN, TOKEN_PATTERN } from "../domain/identifiers";
import type { AppEnv } from "../http/context";
import { authOf, requireKey } from "../http/auth";
import { settle } from "../http/agent-result";
import { consume } from "../http/rate-limit";
import { LIMITS } from "../domain/limits";
import { checkCallbackUrl } from "../net/callback-guard";
import { deliverChallenge } from "../net/delivery";
import { locate, ownedAgent, agentOf } from "../http/agents";
import { identityLabel, identityLevel } from "../http/wire/common";
import { sidParam } from "./fields";
import { bearer, createRoute, errorResponses, json, jsonBody } from "./openapi";

export const CHALLENGE_TTL_SECONDS = 600;
const SENT = { message: "Challenge token sent to callbackUrl. Confirm it within 10 minutes.", expires_in: CHALLENGE_TTL_SECONDS };
const VERIFIED = { message: "Identity verified by callback challenge", identity_level: 1, identity_label: IDENTITY_LABELS[1] };

/**
 * Runs before the body is even parsed: the owner check, then the attempt is counted (3 per hour per
 * agent, every request of the owner whatever its outcome), so the 4th is refused before any check
 * or outbound request.
 */
const countAttempt: MiddlewareHandler<AppEnv> = async (c, next) => {
  const sid = c.req.param("sid") ?? "";
  if (!SID_PATTERN.test(sid)) throw errors.invalidSid();
  await ownedAgent(c, sid, authOf(c).operatorId);
  const decision = await consume(c, `verify:${sid}`, [LIMITS.verify]);
  if (!decision.allowed) {
    throw errors.tooManyVerifications(decision.retryAfter);
  }
  await next();
};

const verify = createRoute({
  method: "post",
  path: "/agents/{sid}/verify",
  operationId: "startCallbackVerification",
  tags: ["Verification"],
  summary: "Send a challenge token to the agent's HTTPS callback (owner, 3 attempts per hour per agent)",
  description:
    "The service POSTs `{challenge_token, sid}` to callbackUrl (https, port 443, public addresses only, 10-second timeout, " +
    "no redirects). Every attempt by the owner counts, whatever its outcome.",
  security: bearer,
  middleware: [requireKey("verify:write"), countAttempt],
  request: {
    params: sidParam,
    body: jsonBody(
      z.object({
        callbackUrl: z
          .string({ error: "callbackUrl is required" })
          .optional()
          .openapi({ example: "https://agent.example.com/trust-callback", description: "https, port 443, public address only" }),
      }),
    ),
  },
  responses: {
    202: json(z.object({ message: z.string(), expires_in: z.number().int() }), "Challenge delivered", SENT),
    ...errorResponses(
      errors.invalid("callbackUrl must use HTTPS"),
      401,
      errors.notOwner(),
      404,
      errors.tooManyVerifications(1800),
      errors.callbackFailed(),
      errors.resolverUnavailable(),
    ),
  },
});

const confirm = createRoute({
  method: "post",
  path: "/agents/{sid}/verify/confirm",
  operationId: "confirmCallbackVerification",
  tags: ["Verification"],
  summary: "Return the delivered challenge token; raises the agent to identity level 1 (owner)",
  security: bearer,
  middleware: [requireKey("verify:write")],
  request: {
    params: sidParam,
    body: jsonBody(
      z.object({
        challenge_token: z
          .string({ error: (iss) => (iss.input === undefined || iss.input === null ? "challenge_token is required" : "Invalid or expired challenge token") })
          .min(1, "challenge_token is required"),
      }),
    ),
  },
  responses: {
    200: json(z.object({ message: z.string(), identity_level: identityLevel, identity_label: identityLabel }), "Verified", VERIFIED),
    ...errorResponses(refusalError("invalid_challenge"), 401, errors.notOwner(), 404, 429),
  },
});

export function registerVerification(app: OpenAPIHono<AppEnv>) {
  app.openapi(verify, async (c) => {
    const { sid } = c.req.valid("param");
    const deps = c.get("deps");
    if (!deps.resolve) throw errors.resolverUnavailable();
    const check = await checkCallbackUrl(c.req.valid("json").callbackUrl, deps.resolve);
    if (!check.ok) throw errors.invalid(check.message);

    const token = newToken();
    const tokenHash = await sha256Hex(token);
    const now = deps.now();
    const ref = await locate(c, sid);
    const agent = agentOf(c, ref);
    // Kept by the agent's object before delivery, so a receiver that confirms at once finds its token.
    settle(c, sid, await agent.addChallenge(ref, { tokenHash, expiresAt: now + CHALLENGE_TTL_SECONDS * 1000 }));
    const delivered = await deliverChallenge(check.url, { challenge_token: token, sid }, deps.fetchOutbound);
    if (!delivered) {
      // The token may have reached someone before the failure: it must not stay usable.
      await agent.voidChallenge(ref, tokenHash);
      throw errors.callbackFailed();
    }
    return c.json(SENT, 202);
  });

  app.openapi(confirm, async (c) => {
    const { sid } = c.req.valid("param");
    const token = c.req.valid("json").challenge_token;
    // A token that cannot be one is refused like a wrong one, after the owner check.
    const tokenHash = await sha256Hex(TOKEN_PATTERN.test(token) ? token : "");
    const ref = await locate(c, sid);
    const out = settle(c, sid, await agentOf(c, ref).confirmIdentity(ref, { callerId: authOf(c).operatorId, tokenHash, now: c.get("deps").now() }));
    // The agent's level now: 1, or 2 where a proven key keeps it there.
    const level = out.identityLevel as 1 | 2;
    return c.json({ message: "Identity verified by callback challenge", identity_level: level, identity_label: IDENTITY_LABELS[level] }, 200);
  });
}
