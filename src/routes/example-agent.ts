// The sample world of the OpenAPI documents' examples: one agent, its owner and its history run
// through the scoring model, with the records every example is rendered from (./examples).
import { applyConfigTo, applyCredibilityTo, applyReportTo, contributionOf, newRecord, scoreEvent, scoreOfRecord, type AgentRecord } from "../domain/agent";
import type { AgentKey } from "../domain/agent-keys";
import { ATTESTATION_LIFETIME_S, ATTESTATION_TYPE, type AttestationClaims } from "../domain/attestations";
import type { AgentConfiguration } from "../domain/configuration";
import { STATUS_LIST_TYPE, statusListClaims, statusListUri } from "../domain/status-list";
import { RESPOND_WITHIN_MS, type Dispute } from "../domain/disputes";
import { EVENT_TYPES } from "../domain/events";
import { operatorScoreFromSums, type Outcome, type PairState, type SignalDimension } from "../domain/model";
import type { AgentReport, AgentScore, ConfigChange, Registration, ScoreEvent, TransactionRecorded } from "../domain/views";
import { badgeFace } from "../http/wire/badge-svg";
import { logExamples } from "./examples-log";

export const DAY = 86_400_000;
export const HOUR = 3_600_000;
export const iso = (t: number) => new Date(t).toISOString();

/**
 * The instant the examples are read at; the sample agent registered three weeks before. Its history
 * is replayed through the model when the Worker starts (every route's examples come from it), so it
 * is kept short: 80 reports cost the cold start a few milliseconds (docs/performance.md).
 */
export const NOW = Date.parse("2026-11-21T10:20:30.000Z");
const REGISTERED = NOW - 22 * DAY;
export const EXAMPLE_REQUEST_ID = "5f0c6d1e-8b7a-4c2d-9e3f-1a2b3c4d5e6f";
export const EXAMPLE_ORIGIN = "https://trust.example.com";

export const owner = { id: 7, name: "Acme Agents", email: "ops@acme.example", createdAt: iso(REGISTERED - 130 * DAY) };
export const SID = "SID-0x3f9a0c1d2e4b5a69";
export const FINGERPRINTS = [
  "4e1c2b7f9a0d3e5c6b8a7f1e2d3c4b5a69788796a5b4c3d2e1f0a9b8c7d6e5f4",
  "b2a39c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b",
];
export const config: AgentConfiguration = {
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
  const configs: ConfigChange[] = [
    { fingerprint: FINGERPRINTS[0], modelProvider: config.modelProvider, modelName: config.modelName, changeType: null, timestamp: iso(REGISTERED) },
  ];
  let last: TransactionRecorded | null = null;
  let n = 0;
  // The reporters' credibility as the job gave it (keys stand for their commitments on the agent).
  const pairs = new Map<string, PairState>();
  const keyOf = (reporter: (typeof REPORTERS)[number]) => `reporter-${reporter.id}`;
  const credited = applyCredibilityTo(record, pairs, {
    at: REGISTERED + 1,
    values: Object.fromEntries(REPORTERS.map((r) => [keyOf(r), 0.8])),
    snapshot: "2026-11-08.1",
  });
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
    events.push({
      eventType: scoreEvent.transaction(outcome),
      composite,
      dimensions,
      timestamp: iso(at),
      transactionId: applied.recorded.id,
      evidence: "receipt",
      status: "active",
    });
    last = { transactionId: applied.recorded.id, score: applied.score, receipt: { accepted: true } };
  };
  for (let day = 1; day <= 14; day++) REPORTERS.forEach((r, i) => report(r, REGISTERED + day * DAY + (9 + i) * HOUR));
  const swapAt = REGISTERED + 15 * DAY + 15 * HOUR;
  const swapped = { ...config, modelName: "claude-opus" };
  const changed = applyConfigTo(record, swapped, FINGERPRINTS[1], swapAt, pairs)!;
  record = changed.record;
  for (const p of changed.pairs) pairs.set(p.reporter, p);
  events.push({
    eventType: scoreEvent.configChange(changed.changeType),
    composite: changed.score.composite,
    dimensions: changed.score.dimensions,
    timestamp: iso(swapAt),
    transactionId: null,
    evidence: null,
    status: null,
  });
  configs.unshift({
    fingerprint: FINGERPRINTS[1],
    modelProvider: swapped.modelProvider,
    modelName: swapped.modelName,
    changeType: changed.changeType,
    timestamp: iso(swapAt),
  });
  for (let day = 16; day <= 21; day++) REPORTERS.forEach((r, i) => report(r, REGISTERED + day * DAY + (9 + i) * HOUR));
  return { record, events: events.reverse(), configs, last: last!, changed };
}

export const history = sampleHistory();
const contribution = contributionOf(history.record, NOW);
export const operatorScoreNow = operatorScoreFromSums(contribution.mass, contribution.weighted);
export const operator = { name: owner.name, score: operatorScoreNow, verified: true };

export const agent: AgentScore = {
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

export const dispute: Dispute = {
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
export const escalatedDispute: Dispute = { ...dispute, status: "escalated", openedAt: iso(NOW - 16 * DAY), respondBy: iso(NOW - 16 * DAY + RESPOND_WITHIN_MS) };
export const answeredDispute: Dispute = {
  ...dispute,
  status: "resolved",
  resolvedAt: iso(NOW - DAY),
  outcome: "kept",
  resolvedBy: "reporter",
  reporterNote: "Our side waited 30 seconds and got no answer; we stand by the timeout.",
};
export const decidedDispute: Dispute = {
  ...escalatedDispute,
  status: "resolved",
  resolvedAt: iso(NOW),
  outcome: "withdrawn",
  resolvedBy: "admin",
  adminNote: "The reporter did not answer; the owner's logs hold up.",
};

export const report: AgentReport = {
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
export const registration: Registration = {
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
export const agentKey: AgentKey = { thumbprint: EXAMPLE_KEYS.agent.thumbprint, jwk: EXAMPLE_KEYS.agent.jwk, directoryUrl: null, addedAt: iso(NOW - 3 * DAY) };

export const logged = logExamples(SID, EXAMPLE_ORIGIN, iso(REGISTERED), iso(NOW - DAY));

export const base64url = (text: string) =>
  btoa(String.fromCharCode(...new TextEncoder().encode(text)))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
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
export const attestation = [
  base64url(JSON.stringify({ alg: "EdDSA", kid: EXAMPLE_KEYS.service.thumbprint, typ: ATTESTATION_TYPE })),
  base64url(JSON.stringify(attestationClaims)),
  base64url("\u0000".repeat(64)),
].join(".");

/** A list of 2^20 entries with three set (ZLIB, base64url), signed as the service signs lists; placeholder signature. */
const EXAMPLE_LST = "eNrt0DERADAIBLAfGepfD9LYuasCEgnJy1YBTmgF" + "A".repeat(338) + "wMcAMRsA1Q";
export const statusListToken = [
  base64url(JSON.stringify({ alg: "EdDSA", kid: EXAMPLE_KEYS.service.thumbprint, typ: STATUS_LIST_TYPE })),
  base64url(JSON.stringify(statusListClaims(EXAMPLE_ORIGIN, 0, EXAMPLE_LST, NOW))),
  base64url("\u0000".repeat(64)),
].join(".");

export const keyRow = (id: number, prefix: string, scopes: readonly string[], createdAt: number, ends: { expiresAt?: number; revokedAt?: number } = {}) => ({
  id,
  prefix,
  scopes: scopes.join(" "),
  createdAt: iso(createdAt),
  expiresAt: ends.expiresAt === undefined ? null : iso(ends.expiresAt),
  revokedAt: ends.revokedAt === undefined ? null : iso(ends.revokedAt),
});
export const API_KEY = "sk_svc_3f9a0c1d8e27b6455d0c9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b";
export const webhookRow = { id: 3, url: "https://ops.acme.example/trust-events", events: EVENT_TYPES.join(" "), createdAt: iso(NOW - 20 * DAY) };
export const face = badgeFace({
  composite: agent.score.composite,
  recommendation: agent.score.recommendation,
  identityLevel: agent.identityLevel,
  status: agent.status,
});
export const applicationRow = {
  id: 42,
  name: owner.name,
  email: owner.email,
  company: "Acme Ltd",
  reason: "We run procurement agents for 30 suppliers",
  status: "pending" as const,
  createdAt: iso(NOW - HOUR),
};
export const operatorRow = {
  id: owner.id,
  name: owner.name,
  email: owner.email,
  tier: "growth" as const,
  verified: true,
  rateLimitPerMinute: null,
  rateLimitPerDay: null,
  createdAt: owner.createdAt,
};
