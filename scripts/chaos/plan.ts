// The seeded plan of the chaos run: which requests, in which order, on which agents, and where the
// service is killed. The same seed gives the same plan (the interleaving of concurrent requests is
// the machine's).
import { randomFor, type Random } from "../simulation";
import { body, type Attempt, type Sent } from "./http";

export interface ChaosOptions {
  seed: string;
  /** Operators owning the agents, and operators reporting on them. */
  owners: number;
  reporters: number;
  agents: number;
  /** Requests of the load (the setup, retries, checks and the smoke pass come on top). */
  requests: number;
  concurrency: number;
  kills: KillPoint[];
  /** Re-sends this many acknowledged keyed requests at the end: each must replay its first answer. */
  replayProbes: number;
}

export interface KillPoint {
  /** Where in the plan, as a share of it. */
  at: number;
  kind: "early" | "mid-burst" | "during a batch";
}

export const FULL: Omit<ChaosOptions, "seed"> = {
  owners: 4,
  reporters: 5,
  agents: 40,
  requests: 900,
  concurrency: 8,
  kills: [
    { at: 0.12, kind: "early" },
    { at: 0.45, kind: "mid-burst" },
    { at: 0.75, kind: "during a batch" },
  ],
  replayProbes: 250,
};

export const SHORT: Omit<ChaosOptions, "seed"> = {
  owners: 2,
  reporters: 3,
  agents: 8,
  requests: 160,
  concurrency: 6,
  kills: [{ at: 0.5, kind: "during a batch" }],
  replayProbes: 40,
};

export type Kind = "report" | "batch" | "config" | "read" | "bad" | "status" | "dispute-open" | "dispute-answer" | "webhook" | "watch" | "smoke";

/** A report the run sent: its marker (in its metadata), agent, and Idempotency-Key if any. */
export interface ReportItem {
  marker: string;
  sid: string;
  outcome: string;
  key: string | null;
  /** False for an item the service must refuse (an unknown outcome). */
  valid: boolean;
}

export interface Planned {
  id: number;
  kind: Kind;
  /** What it is, for the table of bad input and the smoke pass. */
  label: string;
  req: Sent;
  /** Sent with an idempotency key (a single report or a configuration with the header, every batch): retried when unanswered. */
  keyed: boolean;
  reports: ReportItem[];
  /** A configuration change: its model name (unique per request, so its fingerprint names it). */
  config?: { sid: string; modelName: string };
  attempts: Attempt[];
  /** A re-send of an acknowledged request at the end. */
  probe?: Attempt;
  /** Resolved when sent (disputes need an acknowledged report). */
  resolve?: (run: PlanContext) => Sent | null;
}

export interface Operator {
  id: number;
  key: string;
}

export interface PlanContext {
  adminToken: string;
  owners: Operator[];
  reporters: Operator[];
  /** sid → its owner's index in `owners`. */
  agents: { sid: string; owner: number }[];
  /** Acknowledged reports so far: marker → transaction id and reporter. */
  acknowledged: Map<string, { transactionId: number; reporter: number; sid: string }>;
  disputes: { id: number; reporter: Operator }[];
}

const OUTCOMES = ["success", "success", "success", "partial", "failure", "timeout", "error"];
const TYPES = ["payment", "task_completion", "delegation", "search", "booking"];
const SIGNALS = ["reliabilitySignal", "qualitySignal", "financialSignal", "securitySignal"];
const pick = <T>(random: Random, list: readonly T[]): T => list[Math.floor(random() * list.length)];

export const WEBHOOK_HOST = "hooks.chaos.example";

/** A report body: a seeded outcome and signals, and the marker that names it in the agent's history. */
function reportBody(random: Random, sid: string, marker: string): Record<string, unknown> {
  const report: Record<string, unknown> = { sid, transactionType: pick(random, TYPES), outcome: pick(random, OUTCOMES), metadata: { chaos: marker } };
  for (const s of SIGNALS) if (random() < 0.4) report[s] = Math.floor(random() * 1001);
  return report;
}

/** Bad input the service must refuse with a 4xx: what it is, and the request. */
function badInput(random: Random, ctx: PlanContext, id: number): { label: string; req: Sent } {
  const token = ctx.reporters[0].key;
  const sid = pick(random, ctx.agents).sid;
  const deep = (levels: number) => "[".repeat(levels) + "]".repeat(levels);
  const deepObject = (levels: number) => '{"a":'.repeat(levels) + "1" + "}".repeat(levels);
  const cases: { label: string; req: Sent }[] = [
    { label: "malformed JSON", req: { method: "POST", path: "/transactions", token, body: `{"sid":"${sid}","outcome":` } },
    { label: "malformed JSON (batch)", req: { method: "POST", path: "/transactions/batch", token, body: '{"transactions":[{"sid":' } },
    { label: "body over 64 KiB", req: { method: "POST", path: "/transactions", token, body: body({ sid, transactionType: "t", outcome: "success", metadata: { pad: "x".repeat(70 * 1024) } }) } },
    {
      label: "batch over 1 MiB",
      req: { method: "POST", path: "/transactions/batch", token, body: body({ transactions: [{ sid, transactionType: "t", outcome: "success", idempotency_key: `big-${id}`, metadata: { pad: "x".repeat(1100 * 1024) } }] }) },
    },
    { label: "JSON nested 10,000 deep", req: { method: "POST", path: "/transactions", token, body: `{"sid":"${sid}","transactionType":"t","outcome":"success","metadata":{"a":${deep(10_000)}}}` } },
    { label: "JSON nested 10,000 deep (batch)", req: { method: "POST", path: "/transactions/batch", token, body: `{"transactions":${deep(10_000)}}` } },
    { label: "JSON nested 10,000 deep (objects)", req: { method: "POST", path: `/agents/${sid}/config`, token: ctx.owners[0].key, body: deepObject(10_000) } },
  ];
  return pick(random, cases);
}

/** The load: `options.requests` requests, seeded. The setup (operators, agents) is done before. */
export function makePlan(options: ChaosOptions, ctx: PlanContext): Planned[] {
  const random = randomFor("chaos", options.seed);
  const plan: Planned[] = [];
  const add = (p: Omit<Planned, "id" | "attempts">) => plan.push({ ...p, id: plan.length + 1, attempts: [] });
  const n = options.requests;
  // Scripted steps at fixed places: a webhook and watches before the first kill, a suspension and its
  // end, two disputes opened and answered (one report withdrawn, one kept).
  const scripted = new Map<number, () => void>([
    [Math.floor(n * 0.04), () => add({ kind: "webhook", label: "webhook", req: { method: "POST", path: "/webhooks", token: ctx.owners[0].key, body: body({ url: `https://${WEBHOOK_HOST}/trust-events` }) }, keyed: false, reports: [] })],
    [Math.floor(n * 0.05), () => add({ kind: "watch", label: "watch", req: { method: "POST", path: "/watches", token: ctx.reporters[0].key, body: body({ sid: ctx.agents[0].sid }) }, keyed: false, reports: [] })],
    [Math.floor(n * 0.3), () => add({ kind: "status", label: "suspend", req: { method: "POST", path: `/admin/agents/${ctx.agents[1].sid}`, token: ctx.adminToken, body: body({ status: "suspended" }) }, keyed: false, reports: [] })],
    [Math.floor(n * 0.34), () => add({ kind: "status", label: "reinstate", req: { method: "POST", path: `/admin/agents/${ctx.agents[1].sid}`, token: ctx.adminToken, body: body({ status: "active" }) }, keyed: false, reports: [] })],
    [Math.floor(n * 0.55), () => add(disputeOpen(ctx, 0))],
    [Math.floor(n * 0.58), () => add(disputeOpen(ctx, 1))],
    [Math.floor(n * 0.62), () => add(disputeAnswer(ctx, 0, false))],
    [Math.floor(n * 0.65), () => add(disputeAnswer(ctx, 1, true))],
  ]);
  for (let i = 0; i < n; i++) {
    scripted.get(i)?.();
    const id = plan.length + 1;
    const u = random();
    if (u < 0.5) {
      const agent = pick(random, ctx.agents);
      const keyed = random() < 0.6;
      // Mostly other operators' reports, sometimes the owner's own.
      const reporter = random() < 0.1 ? ctx.owners[agent.owner] : pick(random, ctx.reporters);
      const marker = `s${id}`;
      const report = reportBody(random, agent.sid, marker);
      const key = keyed ? `chaos-${options.seed}-${marker}` : null;
      add({
        kind: "report",
        label: keyed ? "report (keyed)" : "report",
        req: { method: "POST", path: "/transactions", token: reporter.key, headers: key ? { "idempotency-key": key } : {}, body: body(report) },
        keyed,
        reports: [{ marker, sid: agent.sid, outcome: report.outcome as string, key, valid: true }],
      });
    } else if (u < 0.58) {
      const size = 2 + Math.floor(random() * 19);
      const reporter = pick(random, ctx.reporters);
      const items: ReportItem[] = [];
      const transactions = Array.from({ length: size }, (_, j) => {
        const agent = pick(random, ctx.agents);
        const marker = `b${id}.${j}`;
        const report = reportBody(random, agent.sid, marker);
        const valid = random() >= 0.05;
        if (!valid) report.outcome = "maybe";
        const key = `chaos-${options.seed}-${marker}`;
        items.push({ marker, sid: agent.sid, outcome: report.outcome as string, key, valid });
        return { ...report, idempotency_key: key };
      });
      add({ kind: "batch", label: "batch", req: { method: "POST", path: "/transactions/batch", token: reporter.key, body: body({ transactions }) }, keyed: true, reports: items });
    } else if (u < 0.64) {
      const agent = pick(random, ctx.agents);
      const keyed = random() < 0.7;
      const modelName = `model-${id}`;
      const config = { modelProvider: pick(random, ["anthropic", "openai", "google"]), modelName, tools: ["search", ...(random() < 0.5 ? ["pay"] : [])] };
      add({
        kind: "config",
        label: keyed ? "configuration (keyed)" : "configuration",
        req: { method: "POST", path: `/agents/${agent.sid}/config`, token: ctx.owners[agent.owner].key, headers: keyed ? { "idempotency-key": `chaos-${options.seed}-c${id}` } : {}, body: body(config) },
        keyed,
        reports: [],
        config: { sid: agent.sid, modelName },
      });
    } else if (u < 0.92) {
      const agent = pick(random, ctx.agents);
      const owner = ctx.owners[agent.owner];
      const reads: Sent[] = [
        { method: "GET", path: `/score/${agent.sid}`, token: pick(random, ctx.reporters).key },
        { method: "GET", path: `/score/${agent.sid}`, token: owner.key, headers: { "api-version": "B" } },
        { method: "GET", path: `/report/${agent.sid}`, token: pick(random, ctx.reporters).key },
        { method: "GET", path: `/agents/${agent.sid}/transactions?limit=20`, token: owner.key },
        { method: "GET", path: "/me", token: owner.key },
        { method: "GET", path: `/badge/${agent.sid}.svg` },
      ];
      add({ kind: "read", label: "read", req: pick(random, reads), keyed: false, reports: [] });
    } else {
      const bad = badInput(random, ctx, id);
      add({ kind: "bad", label: bad.label, req: bad.req, keyed: false, reports: [] });
    }
  }
  return plan;
}

/** The owner of an agent disputes a report another operator made on it (chosen when sent). */
function disputeOpen(ctx: PlanContext, which: number): Omit<Planned, "id" | "attempts"> {
  return {
    kind: "dispute-open",
    label: "dispute opened",
    req: { method: "POST", path: "/transactions/0/dispute" },
    keyed: false,
    reports: [],
    resolve: (run) => {
      const candidates = [...run.acknowledged.values()].filter((a) => a.reporter >= 0 && !run.disputes.some((d) => d.id === a.transactionId));
      const target = candidates[which % Math.max(1, candidates.length)];
      if (!target) return null;
      const owner = run.owners[run.agents.find((a) => a.sid === target.sid)!.owner];
      run.disputes.push({ id: target.transactionId, reporter: run.reporters[target.reporter] });
      return { method: "POST", path: `/transactions/${target.transactionId}/dispute`, token: owner.key, body: body({ reason: "no such delegation", statement: "Our logs show no call that day." }) };
    },
  };
}

/** The reporter answers the dispute: `stand` false withdraws its report. */
function disputeAnswer(ctx: PlanContext, which: number, stand: boolean): Omit<Planned, "id" | "attempts"> {
  return {
    kind: "dispute-answer",
    label: stand ? "dispute answered (kept)" : "dispute answered (withdrawn)",
    req: { method: "POST", path: "/disputes/0/respond" },
    keyed: false,
    reports: [],
    resolve: (run) => {
      const dispute = run.disputes[which];
      if (!dispute) return null;
      return { method: "POST", path: `/disputes/${dispute.id}/respond`, token: dispute.reporter.key, body: body({ stand, note: stand ? "We stand by it." : "Our mistake." }) };
    },
  };
}
