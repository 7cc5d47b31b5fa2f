// The OpenAPI documents' examples, made by the service's own code: a sample agent's history runs
// through the scoring model, and every payload is rendered by the wire modules, so each example is
// a body the service can really send. test/routes/openapi.test.ts checks each against its schema.
import type { z } from "@hono/zod-openapi";
import { ERASED } from "../domain/entries";
import { errors } from "../domain/errors";
import { type Outcome } from "../domain/model";
import { SCOPES } from "../domain/scopes";
import { admin } from "../http/wire/admin";
import { BADGE_LABEL, badgeSvg } from "../http/wire/badge-svg";
import { disputeWire } from "../http/wire/disputes";
import { batchSchema, configSchema, formA, schemas as a, transactionSchema, type BatchOutcome } from "../http/wire/form-a";
import { meSchema, transactionListSchema } from "../http/wire/form-a-lists";
import { batchSchemaB, configSchemaB, formB, schemas as b, transactionSchemaB } from "../http/wire/form-b";
import { identity } from "../http/wire/identity";
import { keys } from "../http/wire/keys";
import { renderAgentPage } from "../http/wire/page/agent-page";
import { renderErrorPage } from "../http/wire/page/document";
import { publicFace } from "../http/wire/page/view";
import { publicProfileView } from "../http/wire/public-page";
import { webhookWire } from "../http/wire/webhooks";
import { SERVICE_VERSION } from "../version";
import {
  DAY,
  HOUR,
  iso,
  NOW,
  EXAMPLE_REQUEST_ID,
  EXAMPLE_ORIGIN,
  owner,
  SID,
  FINGERPRINTS,
  history,
  operatorScoreNow,
  agent,
  dispute,
  escalatedDispute,
  answeredDispute,
  decidedDispute,
  report,
  registration,
  EXAMPLE_KEYS,
  agentKey,
  logged,
  base64url,
  attestation,
  statusListToken,
  keyRow,
  API_KEY,
  webhookRow,
  face,
  applicationRow,
  operatorRow,
} from "./example-agent";

/** A page as rendered, with its style sheet and the badge's image data elided. */
const elided = (html: string) => html.replace(/<style>[^<]*<\/style>/, "<style>…</style>").replace(/base64,[^"]+/, "base64,…");

/** Every example body, by name, for the routes that describe payloads of their own. */
/** A batch of two reports: one recorded, one refused as POST /transactions would refuse it. */
const batchSample: BatchOutcome[] = [
  { recorded: history.last },
  { error: errors.invalid("Invalid outcome. Expected one of: success, partial, failure, timeout, error") },
];

export const sample = {
  registrationA: formA.registration(registration),
  selfRegistration: formA.registration({ ...registration, claimToken: "0b6f1d9c2e8a4f7b3c5d6e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b" }),
  scoreA: formA.score(agent),
  scoreB: formB.score(agent),
  publicScoreA: formA.publicScore(agent),
  publicScoreB: formB.publicScore(agent),
  reportA: formA.report(report),
  reportB: formB.report(report),
  transactionA: formA.transaction(history.last),
  transactionB: formB.transaction(history.last),
  batchA: formA.batch(batchSample),
  batchB: formB.batch(batchSample),
  configA: formA.config({ changeDetected: true, changeType: history.changed.changeType, fingerprint: FINGERPRINTS[1], score: history.changed.score }),
  configB: formB.config({ changeDetected: true, changeType: history.changed.changeType, fingerprint: FINGERPRINTS[1], score: history.changed.score }),
  me: formA.me(
    {
      id: owner.id,
      name: owner.name,
      email: owner.email,
      score: operatorScoreNow,
      verified: true,
      keyPrefix: API_KEY.slice(7, 15),
      createdAt: owner.createdAt,
    },
    [
      {
        sid: agent.sid,
        name: agent.name,
        description: agent.description,
        status: agent.status,
        identityLevel: agent.identityLevel,
        createdAt: agent.createdAt,
        score: agent.score,
      },
    ],
    null,
  ),
  transactions: formA.transactions(
    history.events
      .filter((e) => e.transactionId !== null)
      .slice(0, 2)
      // The older one's text was erased by an admin: its type reads `erased`.
      .map((e, i) => ({
        id: e.transactionId!,
        transactionType: i === 0 ? "invoice_reconciliation" : ERASED,
        outcome: e.eventType.slice("transaction:".length) as Outcome,
        evidence: "receipt" as const,
        status: "active" as const,
        createdAt: e.timestamp,
      })),
    "eyJpZCI6MTI4fQ",
  ),
  dispute: disputeWire.view(dispute, "owner"),
  answeredDispute: disputeWire.view(answeredDispute, "reporter"),
  escalatedDispute: disputeWire.view(escalatedDispute, "admin"),
  decidedDispute: disputeWire.view(decidedDispute, "admin"),
  application: admin.application(applicationRow),
  rejectedApplication: admin.application({ ...applicationRow, status: "rejected" }),
  operator: admin.operator(operatorRow),
  apiKey: API_KEY,
  key: keys.key(keyRow(31, API_KEY.slice(7, 15), SCOPES, NOW - 30 * DAY), NOW),
  revokedKey: keys.key(keyRow(30, "c0ffee42", ["agents:read"], NOW - 60 * DAY, { revokedAt: NOW }), NOW),
  expiringKey: keys.key(keyRow(31, API_KEY.slice(7, 15), SCOPES, NOW - 30 * DAY, { expiresAt: NOW + DAY }), NOW),
  issuedKey: keys.issued(keyRow(32, "5d0c9e8f", SCOPES, NOW), NOW, "sk_svc_5d0c9e8f3f9a0c1d8e27b6457a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b"),
  agentKeys: identity.keys([agentKey], null),
  signatureProof: identity.proof("Identity verified by HTTP message signature", 2, agentKey.thumbprint),
  keyRemoved: identity.proof("Key removed", 1, null),
  attestation: { attestation },
  entries: logged.entries,
  logKeys: {
    sid: SID,
    log: { log: 0, origin: logged.entries.log.origin },
    seq: 2,
    agent: logged.entries.log.agent,
    cutover: 0,
    epochs: [{ epoch: 0, from: 1, to: null, key: logged.epochKey }],
  },
  statusListToken,
  credential: {
    credential: `${base64url(JSON.stringify({ typ: "dc+sd-jwt", kid: EXAMPLE_KEYS.service.thumbprint, alg: "EdDSA" }))}.eyJpc3MiOiJodHRwczovL3RydXN0LmV4YW1wbGUuY29tIn0.${base64url("\u0000".repeat(64))}~WyJzYWx0IiwicmVjb21tZW5kYXRpb24iLCJjbGVhciJd~`,
    expires_at: iso(NOW + DAY),
  },
  credentialNonce: { nonce: "BwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyAhIiMkJSYnKCkqKywtLi8wMTIzNDU2Nzg5Ojs8PT4/QEFCQ0RFRg==", expires_in: 300 },
  jwks: { keys: [{ ...EXAMPLE_KEYS.service.jwk, kid: EXAMPLE_KEYS.service.thumbprint, alg: "EdDSA" as const, use: "sig" as const }] },
  webhook: webhookWire.webhook(webhookRow),
  webhookCreated: webhookWire.created(webhookRow, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"),
  delivery: webhookWire.delivery({
    id: 118,
    webhookId: webhookRow.id,
    eventId: "evt_3f9a0c1d2e4b5a69_9c2e41d07ab3_212",
    eventType: "score.changed",
    status: "delivered",
    attempts: 1,
    lastStatusCode: 204,
    lastError: null,
    createdAt: iso(NOW - HOUR),
    updatedAt: iso(NOW - HOUR + 900),
  }),
  pingDelivery: webhookWire.delivery({
    id: 119,
    webhookId: webhookRow.id,
    eventId: "evt_ping_5b0e6f1c9d2a4e7f8a1b3c5d7e9f0a2b",
    eventType: "ping",
    status: "delivered",
    attempts: 1,
    lastStatusCode: 204,
    lastError: null,
    createdAt: iso(NOW - 60_000),
    updatedAt: iso(NOW - 59_800),
  }),
  watch: webhookWire.watch({ sid: agent.sid, createdAt: iso(NOW - 5 * DAY) }),
  badgeSvg: badgeSvg(BADGE_LABEL, face.message, face.color),
  badgeEndpoint: { schemaVersion: 1, label: BADGE_LABEL, message: face.message, color: face.color } as const,
  publicPage: elided(renderAgentPage({ origin: EXAMPLE_ORIGIN, face: publicFace(agent), attestation: { jws: attestation }, profile: null, asOf: iso(NOW) })),
  unknownAgentPage: elided(renderErrorPage(errors.agentNotFound(), EXAMPLE_REQUEST_ID)),
  rateLimitedPage: elided(renderErrorPage(errors.rateLimited(42), EXAMPLE_REQUEST_ID)),
  publicProfile: publicProfileView(SID, true, EXAMPLE_ORIGIN),
  health: {
    status: "ok" as const,
    version: SERVICE_VERSION,
    checks: { db: "ok" as const, shard_0: "ok" as const, shard_1: "ok" as const },
    credibility: { status: "ok" as const, snapshot: "2026-11-27.1", age_seconds: 3_720, problem: null, anchors: 3 },
    log: { status: "ok" as const, dead_letters_requeued: 0, last_requeued_at: null },
  },
};

/** Examples of the payloads that have a name in the documents. */
const named = new Map<z.ZodType, unknown>([
  [a.registration, sample.registrationA],
  [b.registration, formB.registration(registration)],
  [a.score, sample.scoreA],
  [b.score, sample.scoreB],
  [a.publicScore, sample.publicScoreA],
  [b.publicScore, sample.publicScoreB],
  [a.report, sample.reportA],
  [b.report, sample.reportB],
  [transactionSchema, sample.transactionA],
  [transactionSchemaB, sample.transactionB],
  [batchSchema, sample.batchA],
  [batchSchemaB, sample.batchB],
  [configSchema, sample.configA],
  [configSchemaB, sample.configB],
  [meSchema, sample.me],
  [transactionListSchema, sample.transactions],
  [identity.schemas.keys, sample.agentKeys],
  [webhookWire.schemas.created, sample.webhookCreated],
  [webhookWire.schemas.watch, sample.watch],
]);

export const exampleOf = (schema: z.ZodType): unknown => named.get(schema);
