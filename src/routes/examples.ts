// The OpenAPI documents' examples, made by the service's own code: a sample agent's history runs
// through the scoring model, and every payload is rendered by the wire modules, so each example is
// a body the service can really send. test/routes/openapi.test.ts checks each against its schema.
import type { z } from "@hono/zod-openapi";
import { applyConfigTo, applyCredibilityTo, applyReportTo, contributionOf, newRecord, scoreEvent, scoreOfRecord, type AgentRecord } from "../domain/agent";
import type { AgentKey } from "../domain/agent-keys";
import { ATTESTATION_LIFETIME_S, ATTESTATION_TYPE, type AttestationClaims } from "../domain/attestations";
import type { AgentConfiguration } from "../domain/configuration";
import { STATUS_LIST_TYPE, statusListClaims, statusListUri } from "../domain/status-list";
import { RESPOND_WITHIN_MS, type Dispute } from "../domain/disputes";
import { ERASED } from "../domain/entries";
import { EVENT_TYPES } from "../domain/events";
import { errors } from "../domain/errors";
import { operatorScoreFromSums, type Outcome, type PairState, type SignalDimension } from "../domain/model";
import { SCOPES } from "../domain/scopes";
import type { AgentReport, AgentScore, ConfigChange, Registration, ScoreEvent, TransactionRecorded } from "../domain/views";
import { admin } from "../http/wire/admin";
import { BADGE_LABEL, badgeFace, badgeSvg } from "../http/wire/badge-svg";
import { disputeWire } from "../http/wire/disputes";
import { batchSchema, configSchema, formA, meSchema, schemas as a, transactionListSchema, transactionSchema, type BatchOutcome } from "../http/wire/form-a";
import { batchSchemaB, configSchemaB, formB, schemas as b, transactionSchemaB } from "../http/wire/form-b";
import { identity } from "../http/wire/identity";
import { keys } from "../http/wire/keys";
import { renderAgentPage } from "../http/wire/page/agent-page";
import { renderErrorPage } from "../http/wire/page/document";
import { publicFace } from "../http/wire/page/view";
import { publicProfileView } from "../http/wire/public-page";
import { webhookWire } from "../http/wire/webhooks";
import { SERVICE_VERSION } from "../version";
import { logExamples } from "./examples-log";

const DAY = 86_400_000;
const HOUR = 3_600_000;
const iso = (t: number) => new Date(t).toISOString();

/**
 * The instant the examples are read at; the sample agent registered three weeks before. Its history
 * is replayed through the model when the Worker starts (every route's examples come from it), so it
 * is kept short: 80 reports cost the cold start a few milliseconds (docs/performance.md).
 */
const NOW = Date.parse("2026-11-21T10:20:30.000Z");
const REGISTERED = NOW - 22 * DAY;
export const EXAMPLE_REQUEST_ID = "5f0c6d1e-8b7a-4c2d-9e3f-1a2b3c4d5e6f";
export const EXAMPLE_ORIGIN = "https://trust.example.com";

const owner = { id: 7, name: "Acme Agents", email: "ops@acme.example", createdAt: iso(REGISTERED - 130 * DAY) };
const SID = "SID-0x3f9a0c1d2e4b5a69";
const FINGERPRINTS = [
  "4e1c2b7f9a0d3e5c6b8a7f1e2d3c4b5a69788796a5b4c3d2e1f0a9b8c7d6e5f4",
  "b2a39c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b",
];
const config: AgentConfiguration = {
  modelProvider: "anthropic",
  modelName: "claude-sonnet",
  systemPromptHash: "9c56cc51b374c3ba189210d5b6d4bf57790d351c96c47c02190ecf1e430635ab",
  tools: ["invoice_lookup", "search"],
  memoryConfig: null,
};

/** Independent reporters (operator ids) and whether each is verified. */
const REPORTERS = [
  { id: 11, verified: true },
  { id: 12, verified: true },
  { id: 13, verified: false },
  { id: 14, verified: true },
];
const OUTCOMES_SEEN: Outcome[] = ["success", "success", "success", "partial", "success", "success", "timeout", "success", "success"];

/** The sample agent: registered, reported on daily by four operators, its model swapped a week ago. */
function sampleHistory() {
  let record: AgentRecord = newRecord(
    { sid: SID, num: 1024, shard: 0, log: 0 },
    { operatorId: owner.id, name: "Invoice Bot", description: "Reconciles supplier invoices", config, fingerprint: FINGERPRINTS[0], claimTokenHash: null },
    REGISTERED,
  );
  record = { ...record, identityLevel: 1, callbackVerified: true };
  const events: ScoreEvent[] = [];
  const configs: ConfigChange[] = [{ fingerprint: FINGERPRINTS[0], modelProvider: config.modelProvider, modelName: config.modelName, changeType: null, timestamp: iso(REGISTERED) }];
  let last: TransactionRecorded | null = null;
  let n = 0;
  // The reporters' credibility as the job gave it (keys stand for their commitments on the agent).
  const pairs = new Map<string, PairState>();
  const keyOf = (reporter: (typeof REPORTERS)[number]) => `reporter-${reporter.id}`;
  const credited = applyCredibilityTo(record, pairs, { at: REGISTERED + 1, values: Object.fromEntries(REPORTERS.map((r) => [keyOf(r), 0.8])), snapshot: "2026-11-08.1" });
  record = credited.record;
  for (const p of credited.pairs) pairs.set(p.reporter, p);
  const report = (reporter: (typeof REPORTERS)[number], at: number) => {
    const outcome = OUTCOMES_SEEN[n++ % OUTCOMES_SEEN.length];
    const signals: Partial<Record<SignalDimension, number>> = { reliability: outcome === "success" ? 910 : 640, quality: 870 };
    const key = keyOf(reporter);
    const applied = applyReportTo(
      record,
      { reporter: reporter.id, at, transactionType: "invoice_reconciliation", outcome, signals, metadata: null, receipt: true },
      pairs.get(key) ?? null,
      { reporter: key, owner: null },
    );
    pairs.set(key, applied.pair);
    record = applied.record;
    const { composite, dimensions } = applied.score;
    events.push({ eventType: scoreEvent.transaction(outcome), composite, dimensions, timestamp: iso(at), transactionId: applied.recorded.id, evidence: "receipt", status: "active" });
    last = { transactionId: applied.recorded.id, score: applied.score, receipt: { accepted: true } };
  };
  for (let day = 1; day <= 14; day++) REPORTERS.forEach((r, i) => report(r, REGISTERED + day * DAY + (9 + i) * HOUR));
  const swapAt = REGISTERED + 15 * DAY + 15 * HOUR;
  const swapped = { ...config, modelName: "claude-opus" };
  const changed = applyConfigTo(record, swapped, FINGERPRINTS[1], swapAt, pairs)!;
  record = changed.record;
  for (const p of changed.pairs) pairs.set(p.reporter, p);
  events.push({ eventType: scoreEvent.configChange(changed.changeType), composite: changed.score.composite, dimensions: changed.score.dimensions, timestamp: iso(swapAt), transactionId: null, evidence: null, status: null });
  configs.unshift({ fingerprint: FINGERPRINTS[1], modelProvider: swapped.modelProvider, modelName: swapped.modelName, changeType: changed.changeType, timestamp: iso(swapAt) });
  for (let day = 16; day <= 21; day++) REPORTERS.forEach((r, i) => report(r, REGISTERED + day * DAY + (9 + i) * HOUR));
  return { record, events: events.reverse(), configs, last: last!, changed };
}

const history = sampleHistory();
const contribution = contributionOf(history.record, NOW);
const operatorScoreNow = operatorScoreFromSums(contribution.mass, contribution.weighted);
const operator = { name: owner.name, score: operatorScoreNow, verified: true };

const agent: AgentScore = {
  sid: SID,
  name: history.record.name,
  description: history.record.description,
  status: history.record.status,
  createdAt: history.record.createdAt,
  lastUpdated: history.events[0].timestamp,
  score: scoreOfRecord(history.record, NOW, operatorScoreNow),
  identityLevel: history.record.identityLevel,
  identityKey: null,
  fingerprint: FINGERPRINTS[1],
  operator,
};

const dispute: Dispute = {
  id: history.events[2].transactionId!,
  sid: SID,
  ownerOperatorId: owner.id,
  reporterOperatorId: REPORTERS[2].id,
  status: "open",
  reason: "Reported a timeout, but the invoice was reconciled within its deadline",
  statement: "Our logs show the reconciliation finished in 41 seconds.",
  openedAt: iso(NOW - 2 * DAY),
  respondBy: iso(NOW - 2 * DAY + RESPOND_WITHIN_MS),
  resolvedAt: null,
  outcome: null,
  resolvedBy: null,
  reporterNote: null,
  adminNote: null,
};
const escalatedDispute: Dispute = { ...dispute, status: "escalated", openedAt: iso(NOW - 16 * DAY), respondBy: iso(NOW - 16 * DAY + RESPOND_WITHIN_MS) };
const answeredDispute: Dispute = {
  ...dispute,
  status: "resolved",
  resolvedAt: iso(NOW - DAY),
  outcome: "kept",
  resolvedBy: "reporter",
  reporterNote: "Our side waited 30 seconds and got no answer; we stand by the timeout.",
};
const decidedDispute: Dispute = {
  ...escalatedDispute,
  status: "resolved",
  resolvedAt: iso(NOW),
  outcome: "withdrawn",
  resolvedBy: "admin",
  adminNote: "The reporter did not answer; the owner's logs hold up.",
};

const report: AgentReport = {
  ...agent,
  disputes: [dispute],
  scoreHistory: history.events.slice(0, 3),
  configHistory: history.configs,
  transactions: { total: Object.values(history.record.outcomes).reduce((x, y) => x + y, 0), outcomes: history.record.outcomes },
  config: { modelName: history.record.config.modelName, version: history.record.configVersion, lastChange: history.record.lastConfigChangeAt },
  operatorProfile: { score: operatorScoreNow, since: owner.createdAt, agentsOperated: 3 },
  asOf: iso(NOW),
};

const newAgent = newRecord(
  { sid: "SID-0x8d41be07c2a95f36", num: 2051, shard: 1, log: 0 },
  { operatorId: owner.id, name: "Procurement Scout", description: null, config, fingerprint: FINGERPRINTS[0], claimTokenHash: null },
  NOW,
);
const registration: Registration = {
  sid: newAgent.sid,
  name: newAgent.name,
  status: newAgent.status,
  createdAt: newAgent.createdAt,
  score: scoreOfRecord(newAgent, NOW),
  fingerprint: newAgent.fingerprint,
};

/** Ed25519 public keys with their RFC 7638 thumbprints (test/routes/openapi.test.ts recomputes them). */
export const EXAMPLE_KEYS = {
  agent: { jwk: { kty: "OKP", crv: "Ed25519", x: "j3Yrg_3VdeADyTZv1SWouR5ZQq7kZlJ6PYJB6QHbZVw" }, thumbprint: "v00fAem4MyYn59b5efRJR3ejGKL8g5NtirE64CZOS_Q" },
  service: { jwk: { kty: "OKP", crv: "Ed25519", x: "JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs" }, thumbprint: "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U" },
} as const;
const agentKey: AgentKey = { thumbprint: EXAMPLE_KEYS.agent.thumbprint, jwk: EXAMPLE_KEYS.agent.jwk, directoryUrl: null, addedAt: iso(NOW - 3 * DAY) };

const logged = logExamples(SID, EXAMPLE_ORIGIN, iso(REGISTERED), iso(NOW - DAY));

const base64url = (text: string) => btoa(String.fromCharCode(...new TextEncoder().encode(text))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const attestationClaims: AttestationClaims = {
  iss: EXAMPLE_ORIGIN,
  sub: agent.sid,
  iat: Math.floor(NOW / 1000),
  exp: Math.floor(NOW / 1000) + ATTESTATION_LIFETIME_S,
  status: agent.status,
  composite_score: agent.score.composite,
  confidence: agent.score.confidence,
  recommendation: agent.score.recommendation,
  identity_level: agent.identityLevel,
  operator_name: operator.name,
  status_list: { idx: 407_311, uri: statusListUri(EXAMPLE_ORIGIN, 0) },
  log: logged.log,
};
/** Header and claims as the service signs them; the signature part is a placeholder of the right length. */
const attestation = [
  base64url(JSON.stringify({ alg: "EdDSA", kid: EXAMPLE_KEYS.service.thumbprint, typ: ATTESTATION_TYPE })),
  base64url(JSON.stringify(attestationClaims)),
  base64url("\u0000".repeat(64)),
].join(".");

/** A list of 2^20 entries with three set (ZLIB, base64url), signed as the service signs lists; placeholder signature. */
const EXAMPLE_LST =
  "eNrt0DERADAIBLAfGepfD9LYuasCEgnJy1YBTmgF" + "A".repeat(338) + "wMcAMRsA1Q";
const statusListToken = [
  base64url(JSON.stringify({ alg: "EdDSA", kid: EXAMPLE_KEYS.service.thumbprint, typ: STATUS_LIST_TYPE })),
  base64url(JSON.stringify(statusListClaims(EXAMPLE_ORIGIN, 0, EXAMPLE_LST, NOW))),
  base64url("\u0000".repeat(64)),
].join(".");

const keyRow = (id: number, prefix: string, scopes: readonly string[], createdAt: number, ends: { expiresAt?: number; revokedAt?: number } = {}) => ({
  id,
  prefix,
  scopes: scopes.join(" "),
  createdAt: iso(createdAt),
  expiresAt: ends.expiresAt === undefined ? null : iso(ends.expiresAt),
  revokedAt: ends.revokedAt === undefined ? null : iso(ends.revokedAt),
});
const API_KEY = "sk_svc_3f9a0c1d8e27b6455d0c9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b";
const webhookRow = { id: 3, url: "https://ops.acme.example/trust-events", events: EVENT_TYPES.join(" "), createdAt: iso(NOW - 20 * DAY) };
const face = badgeFace({ composite: agent.score.composite, recommendation: agent.score.recommendation, identityLevel: agent.identityLevel, status: agent.status });
const applicationRow = {
  id: 42,
  name: owner.name,
  email: owner.email,
  company: "Acme Ltd",
  reason: "We run procurement agents for 30 suppliers",
  status: "pending" as const,
  createdAt: iso(NOW - HOUR),
};
const operatorRow = {
  id: owner.id,
  name: owner.name,
  email: owner.email,
  tier: "growth" as const,
  verified: true,
  rateLimitPerMinute: null,
  rateLimitPerDay: null,
  createdAt: owner.createdAt,
};

/** A page as rendered, with its style sheet and the badge's image data elided. */
const elided = (html: string) => html.replace(/<style>[^<]*<\/style>/, "<style>…</style>").replace(/base64,[^"]+/, "base64,…");

/** Every example body, by name, for the routes that describe payloads of their own. */
/** A batch of two reports: one recorded, one refused as POST /transactions would refuse it. */
const batchSample: BatchOutcome[] = [{ recorded: history.last }, { error: errors.invalid("Invalid outcome. Expected one of: success, partial, failure, timeout, error") }];

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
    { id: owner.id, name: owner.name, email: owner.email, score: operatorScoreNow, verified: true, keyPrefix: API_KEY.slice(7, 15), createdAt: owner.createdAt },
    [{ sid: agent.sid, name: agent.name, description: agent.description, status: agent.status, identityLevel: agent.identityLevel, createdAt: agent.createdAt, score: agent.score }],
    null,
  ),
  transactions: formA.transactions(
    history.events
      .filter((e) => e.transactionId !== null)
      .slice(0, 2)
      // The older one's text was erased by an admin: its type reads `erased`.
      .map((e, i) => ({ id: e.transactionId!, transactionType: i === 0 ? "invoice_reconciliation" : ERASED, outcome: e.eventType.slice("transaction:".length) as Outcome, evidence: "receipt" as const, status: "active" as const, createdAt: e.timestamp })),
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
  logKeys: { sid: SID, log: { log: 0, origin: logged.entries.log.origin }, seq: 2, agent: logged.entries.log.agent, cutover: 0, epochs: [{ epoch: 0, from: 1, to: null, key: logged.epochKey }] },
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
