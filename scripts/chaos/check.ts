// The checks of the chaos run, once the load, the kills and the retries are over: every acknowledged
// report stored exactly once (the shard rows, the owner's list, the per-agent counts, the
// transparency log), every retry and probe replayed the stored answer, every score equals a replay of
// the history, nothing stuck in an agent's journal or outboxes, and every route answers again.
import { MAX_LOG_DELAY_MS } from "../../clients/typescript/log-monitor";
import { classifyChange, replay, scoreOf, type AgentConfiguration, type HistoryEvent } from "../../src/domain/model";
import { send, type Answered, type Json } from "./http";
import type { ChaosOptions, Planned } from "./plan";
import type { RunContext } from "./run";
import { sleep } from "./service";
import { agentStorage, shardConfigs, shardReports, type ShardReport } from "./state";

export interface ChaosReport {
  figures: [string, number | string][];
  failures: string[];
  notes: string[];
  badInput: Map<string, { sent: number; answered: number; statuses: Record<string, number> }>;
}

/**
 * The stated maximum delay from a change's commit to its leaf's inclusion in the log (the monitor's
 * owner check holds the service to it too): an entry a kill left unsent has an alarm within a
 * minute behind it, its object's retries back off to at most five minutes, the sequencer integrates
 * every second.
 */
const LOG_DRAIN_MS = MAX_LOG_DELAY_MS;
/** When the reconciliation runs, if leaves are still missing: past the objects' alarms and a few retries. */
const RECONCILE_AFTER_MS = 90_000;

function answered(p: Planned): Answered | undefined {
  return p.attempts.find((a): a is Answered => a.answered);
}

/** The payload of a compact JWS (a log promise), unverified: the run only reads which leaf it names. */
function jwsPayload(jws: string): Json {
  return JSON.parse(Buffer.from(jws.split(".")[1], "base64url").toString("utf8"));
}

/** C2SP tlog-tiles: N in three-digit groups, all but the last prefixed with x. */
function tileIndex(n: number): string {
  const groups: string[] = [];
  do {
    groups.unshift(String(n % 1000).padStart(3, "0"));
    n = Math.floor(n / 1000);
  } while (n > 0);
  return groups.map((g, i) => (i < groups.length - 1 ? `x${g}` : g)).join("/");
}

/** Every leaf of log n (agent tag, seq, entry hash), read from its checkpoint's entry bundles. */
async function logLeaves(url: string, n: number): Promise<{ agent: string; seq: number; entry_hash: string }[]> {
  const res = await fetch(`${url}/log/${n}/checkpoint`);
  const note = await res.text();
  if (res.status === 404) return [];
  if (!res.ok) throw new Error(`log ${n} checkpoint: ${res.status} ${note.slice(0, 200)}`);
  const size = Number(note.split("\n")[1]);
  const leaves: { agent: string; seq: number; entry_hash: string }[] = [];
  for (let b = 0; b * 256 < size; b++) {
    const width = Math.min(256, size - b * 256);
    const path = `/log/${n}/tile/entries/${tileIndex(b)}${width < 256 ? `.p/${width}` : ""}`;
    const tile = await fetch(`${url}${path}`);
    if (!tile.ok) throw new Error(`${path}: ${tile.status}`);
    const bytes = new Uint8Array(await tile.arrayBuffer());
    for (let at = 0; at < bytes.length; ) {
      const length = (bytes[at] << 8) | bytes[at + 1];
      leaves.push(JSON.parse(Buffer.from(bytes.subarray(at + 2, at + 2 + length)).toString("utf8")));
      at += 2 + length;
    }
  }
  return leaves;
}

/** The first path where two JSON values differ, or null. */
function firstDifference(a: Json, b: Json, path = "$"): string | null {
  if (a === b) return null;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return `${path}: ${JSON.stringify(a)?.slice(0, 80)} / ${JSON.stringify(b)?.slice(0, 80)}`;
  for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const d = firstDifference(a[k], b[k], `${path}.${k}`);
    if (d) return d;
  }
  return null;
}

type Promised = { key: string; log: number; marker: string };

/** A leaf's identity in the log: its tag and commit (a tagged leaf), or its agent, entry number and entry hash (the leaf of before). */
const leafKey = (l: Json) => (typeof l.tag === "string" ? `${l.tag}/${l.commit}` : `${l.agent}/${l.seq}/${l.entry_hash}`);

/** Waits (bounded) until every promised leaf is in its log; what was missing at first, and at the end. */
async function drainLog(run: RunContext, promised: Promised[]): Promise<{ missingFirst: number; missing: Promised[]; doubled: number; reachable: boolean; waitedMs: number; reconciled: { agents: number; entries: number } | null }> {
  const started = Date.now();
  const logs = [...new Set(promised.map((p) => p.log))];
  let missingFirst = -1;
  let passes = 0;
  const total = { agents: 0, entries: 0 };
  const reconciled = () => (passes > 0 ? total : null);
  for (;;) {
    let counts: Map<string, number>;
    try {
      counts = new Map();
      for (const n of logs) for (const l of await logLeaves(run.service.url, n)) counts.set(leafKey(l), (counts.get(leafKey(l)) ?? 0) + 1);
    } catch (err) {
      run.log(`the transparency log is not readable: ${(err as Error).message}`);
      return { missingFirst: 0, missing: [], doubled: 0, reachable: false, waitedMs: Date.now() - started, reconciled: reconciled() };
    }
    const missing = promised.filter((p) => !counts.has(p.key));
    if (missingFirst < 0) missingFirst = missing.length;
    const doubled = promised.filter((p) => (counts.get(p.key) ?? 0) > 1).length;
    if (missing.length === 0 || Date.now() - started > LOG_DRAIN_MS) return { missingFirst, missing, doubled, reachable: true, waitedMs: Date.now() - started, reconciled: reconciled() };
    // Past the objects' own resends (an alarm within a minute of a batch, its retries after), what
    // is still missing was accepted by a queue the kill emptied (wrangler dev keeps queued messages in
    // memory; the platform's queues keep them): the reconciliation finds it, as the daily cron does.
    // Every RECONCILE_AFTER_MS while something is missing, as an operator would run it again.
    if (Date.now() - started > RECONCILE_AFTER_MS * (passes + 1)) {
      const pass = await reconcile(run);
      passes++;
      total.agents += pass.agents;
      total.entries += pass.entries;
      run.log(`log: ${missing.length} promised leaves missing after ${((Date.now() - started) / 1000).toFixed(0)} s; reconciliation pass ${passes} had ${pass.agents} agents send ${pass.entries} entries again`);
    }
    await sleep(5_000);
  }
}

/** Every page of the log's reconciliation, as an operator runs it (`npm run admin -- reconcile-log`). */
async function reconcile(run: RunContext): Promise<{ agents: number; entries: number }> {
  const total = { agents: 0, entries: 0 };
  let after = 0;
  for (;;) {
    const a = await send(run.service.url, { method: "POST", path: "/admin/log/reconcile", token: run.adminToken, body: JSON.stringify({ after }) }, run.service.starts);
    if (!a.answered || a.status !== 200) throw new Error(`POST /admin/log/reconcile: ${a.answered ? `${a.status} ${a.text.slice(0, 200)}` : a.error}`);
    total.agents += a.json.republished;
    total.entries += a.json.entries;
    if (a.json.complete) return total;
    after = a.json.next;
  }
}

async function getJson(run: RunContext, path: string, token?: string, headers: Record<string, string> = {}): Promise<Json> {
  const a = await send(run.service.url, { method: "GET", path, token, headers }, run.service.starts);
  if (!a.answered || a.status !== 200) throw new Error(`GET ${path}: ${a.answered ? `${a.status} ${a.text.slice(0, 200)}` : a.error}`);
  return a.json;
}

/** The owner's list of an agent's reports, every page. */
async function ownerList(run: RunContext, sid: string, token: string): Promise<{ transaction_id: number; outcome: string; status: string; timestamp: string }[]> {
  const all: Json[] = [];
  let cursor: string | null = null;
  do {
    const page = await getJson(run, `/agents/${sid}/transactions?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, token);
    all.push(...page.transactions);
    cursor = page.next_cursor;
  } while (cursor);
  return all;
}

/** The routes a client uses, each once: any 5xx or no answer fails the run. */
async function smoke(run: RunContext): Promise<{ bad: string[]; report: Planned }> {
  const sid = run.agents[0].sid;
  const owner = run.owners[run.agents[0].owner].key;
  const reporter = run.reporters[0].key;
  const routes: [string, string | undefined][] = [
    ["/", undefined], ["/health", undefined], ["/openapi.json", undefined], ["/.well-known/jwks.json", undefined], ["/log/keys", undefined], ["/log/0/checkpoint", undefined],
    ["/me", owner], ["/keys", owner], [`/score/${sid}`, reporter], [`/report/${sid}`, reporter], [`/agents/${sid}/transactions`, owner], [`/badge/${sid}.svg`, undefined],
    [`/badge/${sid}.json`, undefined], [`/score/${sid}/attestation`, reporter], [`/agents/${sid}`, undefined], ["/webhooks", run.owners[0].key], ["/watches", reporter],
    ["/disputes", owner], ["/status/0", undefined], [`/admin/disputes`, run.adminToken],
  ];
  const bad: string[] = [];
  for (const [path, token] of routes) {
    const a = await send(run.service.url, { method: "GET", path, token }, run.service.starts);
    if (!a.answered || a.status >= 500) bad.push(`GET ${path}: ${a.answered ? a.status : a.error}`);
  }
  const req = { method: "POST", path: "/transactions", token: reporter, body: JSON.stringify({ sid, transactionType: "smoke", outcome: "success", metadata: { chaos: "smoke" } }) };
  const report = await send(run.service.url, req, run.service.starts);
  if (!report.answered || report.status !== 201) bad.push(`POST /transactions: ${report.answered ? report.status : report.error}`);
  const planned: Planned = { id: 0, kind: "smoke", label: "smoke report", req, keyed: false, reports: [{ marker: "smoke", sid, outcome: "success", key: null, valid: true }], attempts: [report] };
  return { bad, report: planned };
}

const configOf = (c: { modelProvider: string; modelName: string; tools: string[] }): AgentConfiguration => ({ ...c, systemPromptHash: null, memoryConfig: null });

export async function checkRun(run: RunContext, retries: { retried: number; stillUnanswered: number }, options: ChaosOptions): Promise<ChaosReport> {
  const failures: string[] = [];
  const notes: string[] = [];
  // Every route answers again (its one report comes before the drains, so its alarm is waited for too).
  const smoked = await smoke(run);
  failures.push(...smoked.bad.map((s) => `after the run: ${s}`));
  run.plan.push(smoked.report);
  const all = [...run.plan, ...(run.webhook ? [run.webhook] : [])];
  const operatorOf = new Map([...run.owners, ...run.reporters].map((o) => [o.key, o.id]));

  // What was acknowledged, and each report's request body (its signals) and reporter.
  const sent = new Map<string, { report: Json; reporter: number; keyed: boolean; planned: Planned }>();
  for (const p of run.plan) {
    if (p.kind === "report" || p.kind === "smoke") sent.set(p.reports[0].marker, { report: JSON.parse(p.req.body!), reporter: operatorOf.get(p.req.token!)!, keyed: p.keyed, planned: p });
    if (p.kind === "batch") JSON.parse(p.req.body!).transactions.forEach((t: Json, i: number) => sent.set(p.reports[i].marker, { report: t, reporter: operatorOf.get(p.req.token!)!, keyed: true, planned: p }));
  }

  // Every retry's answer equals the stored answer: a retried report that had committed answers the
  // transaction id stored for it, and no retry stores a second copy (checked below by marker).
  let probesSent = 0;
  let probeMismatches = 0;
  for (const p of run.plan) {
    if (!p.probe) continue;
    probesSent++;
    const first = answered(p)!;
    const same = p.probe.answered && p.probe.status === first.status && firstDifference(first.json, p.probe.json) === null;
    if (!same) {
      probeMismatches++;
      const where = p.probe.answered ? (p.probe.status !== first.status ? `status ${first.status} / ${p.probe.status}` : firstDifference(first.json, p.probe.json)) : p.probe.error;
      if (probeMismatches <= 5) failures.push(`replay of ${p.label} #${p.id} differs at ${where}`);
    }
  }


  // The transparency log: every acknowledged report's promised leaf, in its log exactly once.
  const keys = await getJson(run, "/log/keys").catch(() => null);
  const logOfOrigin = new Map<string, number>((keys?.logs ?? []).map((l: Json) => [l.origin, l.log]));
  const promised: Promised[] = [];
  const answers = new Map<string, Json>();
  for (const p of run.plan) {
    const a = answered(p);
    if (!a) continue;
    if ((p.kind === "report" || p.kind === "smoke") && a.status === 201) answers.set(p.reports[0].marker, a.json);
    if (p.kind === "batch" && a.status === 200) a.json.results.forEach((r: Json, i: number) => r.status === 201 && answers.set(p.reports[i].marker, r));
  }
  for (const [marker, answer] of answers) {
    if (!answer.log_promise) continue;
    const claim = jwsPayload(answer.log_promise);
    promised.push({ marker, log: logOfOrigin.get(claim.log) ?? 0, key: leafKey(claim.leaf) });
  }
  const drained = keys ? await drainLog(run, promised) : { missingFirst: 0, missing: [], doubled: 0, reachable: false, waitedMs: 0, reconciled: null };
  if (drained.reachable) {
    notes.push(`log: ${promised.length} promised leaves; ${drained.missingFirst} not in the log at the first look after the load, ${drained.missing.length} after ${(drained.waitedMs / 1000).toFixed(0)} s${drained.reconciled ? `; the reconciliation had ${drained.reconciled.agents} agents send ${drained.reconciled.entries} entries again` : ""}`);
    for (const m of drained.missing.slice(0, 5)) failures.push(`leaf of report ${m.marker} never reached log ${m.log}`);
    if (drained.doubled) failures.push(`${drained.doubled} promised leaves appear more than once in the log`);
  } else notes.push("log: not reachable (no LOG_SIGNING_KEYS?): leaves not checked");

  // The agents' objects keep nothing of their own: the shard is the record. Read beside the running service.
  const storage = await agentStorage(run.service.persistTo);
  notes.push(`objects: ${storage.objects} agents' objects, ${storage.withTables} holding a table of their own${storage.tables.length ? ` (${storage.tables.join(", ")})` : ""}`);

  // Per agent: the owner's list, the counts, and the score against a replay of the history.
  const perAgent = new Map<string, { list: Awaited<ReturnType<typeof ownerList>>; report: Json; reportB: Json; score: Json; scoreAt: number }>();
  for (const agent of run.agents) {
    const owner = run.owners[agent.owner].key;
    const list = await ownerList(run, agent.sid, owner);
    const report = await getJson(run, `/report/${agent.sid}`, owner);
    const reportB = await getJson(run, `/report/${agent.sid}`, owner, { "api-version": "B" });
    const scoreAt = Date.now();
    const score = await getJson(run, `/score/${agent.sid}`, owner);
    perAgent.set(agent.sid, { list, report, reportB, score, scoreAt });
  }

  // The shard rows, read as an operator would, with the service stopped.
  await run.service.stop();
  const rows = await shardReports(run.service);
  const changes = await shardConfigs(run.service);

  // By marker: where each report is stored.
  const stored = new Map<string, ShardReport[]>();
  for (const r of rows) if (r.marker) stored.set(r.marker, [...(stored.get(r.marker) ?? []), r]);
  let lost = 0;
  let doubled = 0;
  let listMissing = 0;
  let committedUnanswered = 0;
  let unansweredKeyless = 0;
  let retriedReplayed = 0;
  for (const [marker, info] of sent) {
    const copies = stored.get(marker) ?? [];
    if (copies.length > 1) {
      doubled++;
      if (doubled <= 5) failures.push(`report ${marker} stored ${copies.length} times`);
    }
    const answer = answers.get(marker);
    const firstAnswered = answered(info.planned);
    if (answer) {
      const id = answer.transaction_id;
      if (!copies.some((c) => c.transactionId === id)) {
        lost++;
        if (lost <= 5) failures.push(`acknowledged report ${marker} (${id}) not in the shard`);
      }
      const listed = perAgent.get(copies[0]?.sid ?? "")?.list.filter((t) => t.transaction_id === id).length ?? 0;
      if (listed !== 1) {
        listMissing++;
        if (listMissing <= 5) failures.push(`acknowledged report ${marker} (${id}) listed ${listed} times to its owner`);
      }
      // A retry answered: it replayed what the first, unanswered attempt stored, or stored it first.
      if (firstAnswered && info.planned.attempts.indexOf(firstAnswered) > 0 && copies.length === 1) retriedReplayed++;
    }
    if (!firstAnswered && info.planned.attempts.length > 0 && copies.length > 0) {
      committedUnanswered++;
      if (!info.keyed) unansweredKeyless++;
    }
  }
  // Unanswered requests: the keyed ones were retried; a committed keyless one is a report its sender never heard of.
  const unanswered = all.filter((p) => p.attempts.length > 0 && !p.attempts[0].answered);

  // Per-agent counts and replays.
  let countMismatches = 0;
  let scoreMismatches = 0;
  for (const agent of run.agents) {
    const seen = perAgent.get(agent.sid)!;
    const onShard = rows.filter((r) => r.sid === agent.sid);
    const total = seen.report.transaction_summary.total;
    // The count leaves withdrawn reports out; the owner's list shows them, marked.
    const counted = onShard.filter((r) => r.status !== "withdrawn").length;
    if (total !== counted || seen.list.length !== onShard.length) {
      countMismatches++;
      failures.push(`${agent.sid}: ${onShard.length} reports on the shard (${counted} not withdrawn), ${seen.list.length} in the owner's list, a count of ${total}`);
    }
    // The replay: the reports the owner can read (withdrawn ones left out) with what the run sent
    // for each, and the configurations in config_history, in time order.
    const ownerId = run.owners[agent.owner].id;
    const events: (HistoryEvent & { order: number })[] = [];
    for (const t of seen.list) {
      if (t.status === "withdrawn") continue;
      const row = onShard.find((r) => r.transactionId === t.transaction_id);
      const info = row?.marker ? sent.get(row.marker) : undefined;
      if (!info) {
        notes.push(`${agent.sid}: report ${t.transaction_id} has no known sender`);
        continue;
      }
      const signals: Record<string, number> = {};
      for (const [field, dim] of [["reliabilitySignal", "reliability"], ["qualitySignal", "quality"], ["financialSignal", "financial"], ["securitySignal", "security"]]) {
        if (typeof info.report[field] === "number") signals[dim] = info.report[field];
      }
      events.push({ kind: "report", order: row!.n, reporter: String(info.reporter), at: Date.parse(t.timestamp), outcome: t.outcome as never, signals, receipt: false });
    }
    // The configurations in their entry order (the shard's config_history numbers them in the chain),
    // each change classified from what the run sent, as the service classified it.
    let previous = configOf(run.registered.get(agent.sid)!);
    const configs = new Map(run.plan.filter((p) => p.config).map((p) => [p.config!.modelName, JSON.parse(p.req.body!)]));
    for (const c of changes.filter((c) => c.sid === agent.sid).sort((a, b) => a.seq - b.seq)) {
      const next = configOf(configs.get(c.modelName) ?? { ...previous, modelName: c.modelName });
      events.push({ kind: "config", order: c.seq, at: c.at, changes: classifyChange(previous, next).changes });
      previous = next;
    }
    // The model folds in chain order: entry numbers, not timestamps (a batch's reports carry the time
    // the request came, and a single report on the same agent may be numbered between them).
    events.sort((a, b) => a.order - b.order);
    const createdAt = Date.parse(seen.reportB.created_at);
    // Under version 4, reporters keyed by their operator ids (the sums do not depend on the keys; the
    // run names no anchor and runs no job, so no credibility entry moves anyone off 0 and the replay
    // needs none).
    const operatorScore = seen.score.operator?.score ?? 500;
    const expected = scoreOf(replay(events, String(ownerId), createdAt).model, { now: seen.scoreAt, owned: true, identityLevel: 0, operatorScore });
    const got = seen.score;
    const same = expected.composite === got.composite_score && (["reliability", "quality", "financial", "security", "stability"] as const).every((d) => expected.dimensions[d] === got[d]);
    if (!same) {
      scoreMismatches++;
      if (process.env.CHAOS_DEBUG) (await import("node:fs")).writeFileSync(`${process.env.CHAOS_DEBUG}-${agent.sid}.json`, JSON.stringify({ agent, events, seen, ownerId, expected }, null, 1));
      if (scoreMismatches <= 5) failures.push(`${agent.sid} (agent ${run.agents.indexOf(agent)}): GET /score ${got.composite_score} (${got.reliability}/${got.quality}/${got.financial}/${got.security}/${got.stability}), the replay of its history ${expected.composite} (${Object.values(expected.dimensions).join("/")})`);
    }
  }

  // Nothing of the earlier contract, nor anything else, in an object's own storage.
  if (storage.withTables > 0) failures.push(`${storage.withTables} agents' objects hold tables of their own (${storage.tables.join(", ")}): the shard is the record`);

  // 5xx anywhere (bad input included), and the bad input's answers.
  const badInput = new Map<string, { sent: number; answered: number; statuses: Record<string, number> }>();
  let serverErrors = 0;
  for (const p of all) {
    for (const a of [...p.attempts, ...(p.probe ? [p.probe] : [])]) {
      if (a.answered && a.status >= 500) {
        serverErrors++;
        if (serverErrors <= 5) failures.push(`5xx: ${p.label} #${p.id} answered ${a.status} ${a.text.slice(0, 200)}`);
      }
    }
    if (p.kind === "bad") {
      const b = badInput.get(p.label) ?? { sent: 0, answered: 0, statuses: {} };
      b.sent++;
      const a = p.attempts[0];
      if (a?.answered) {
        b.answered++;
        const shown = a.status === 200 && Array.isArray(a.json?.results) ? `200 (${a.json.results.map((r: Json) => r.status).join(", ")} inside)` : String(a.status);
        b.statuses[shown] = (b.statuses[shown] ?? 0) + 1;
        // A batch whose one report is bad answers 200 with that report's 4xx (its neighbours would stand).
        const refusedInside = a.status === 200 && p.req.path === "/transactions/batch" && Array.isArray(a.json?.results) && a.json.results.every((r: Json) => r.status >= 400 && r.status < 500);
        if ((a.status < 400 || a.status >= 500) && !refusedInside) failures.push(`bad input (${p.label}) answered ${a.status} ${a.text.slice(0, 160)}`);
      }
      badInput.set(p.label, b);
    }
  }
  if (lost > 0 || doubled > 0) notes.push("acknowledged reports were lost or doubled");
  if (retries.stillUnanswered > 0) failures.push(`${retries.stillUnanswered} keyed requests still unanswered after 3 retries`);
  if (countMismatches > 5) failures.push(`... ${countMismatches} agents whose counts differ`);

  const acknowledged = answers.size;
  const figures: [string, number | string][] = [
    ["requests sent (load, retries, probes)", all.reduce((n, p) => n + p.attempts.length + (p.probe ? 1 : 0), 0)],
    ["kills (SIGKILL of the process group)", run.service.kills],
    ["reports sent", sent.size],
    ["reports acknowledged", acknowledged],
    ["unanswered requests (at the kills)", unanswered.length],
    ["  keyed, retried", retries.retried],
    ["  keyless, counted, not retried", unanswered.filter((p) => !p.keyed).length],
    ["unanswered reports that had committed", committedUnanswered],
    ["  of them keyless (stored, never acknowledged)", unansweredKeyless],
    ["retries answered with the stored report", retriedReplayed],
    ["replay probes (acknowledged, sent again)", probesSent],
    ["  answered differently", probeMismatches],
    ["lost (acknowledged, not stored)", lost],
    ["doubled (stored more than once)", doubled],
    ["missing from the owner's list", listMissing],
    ["agents whose counts differ", countMismatches],
    ["agents whose score differs from the replay", scoreMismatches],
    ["log leaves promised", promised.length],
    ["  not yet in the log at the first look", drained.missingFirst],
    ["  never in the log", drained.missing.length],
    ["agents' objects holding tables of their own", storage.withTables],
    ["5xx", serverErrors],
  ];
  return { figures, failures, notes, badInput };
}
