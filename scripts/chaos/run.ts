// The chaos run: the service under wrangler dev, a seeded mixed load, SIGKILLs of its whole process
// group at the plan's kill points, restarts on the same state, retries of every unanswered keyed
// request, then the checks (./check.ts). Everything it started is stopped, whatever happens.
import { randomFor } from "../simulation";
import { checkRun, type ChaosReport } from "./check";
import { body, send, type Attempt, type Sent } from "./http";
import { makePlan, WEBHOOK_HOST, type ChaosOptions, type Operator, type PlanContext, type Planned } from "./plan";
import { ChaosService, sleep } from "./service";

export interface RunContext extends PlanContext {
  service: ChaosService;
  plan: Planned[];
  /** sid → the configuration it was registered with. */
  registered: Map<string, { modelProvider: string; modelName: string; tools: string[] }>;
  log: (line: string) => void;
  startedAt: number;
  /** The webhook registration (sent before the load), if any. */
  webhook?: Planned;
}

const LIMITS = { rate_limit_per_minute: 1_000_000, rate_limit_per_day: 10_000_000 };

async function must(service: ChaosService, req: Sent, status: number, what: string) {
  const a = await send(service.url, req, service.starts);
  if (!a.answered || a.status !== status) throw new Error(`${what}: expected ${status}, got ${a.answered ? `${a.status} ${a.text.slice(0, 300)}` : a.error}`);
  return a.json;
}

async function operator(service: ChaosService, n: number, name: string): Promise<Operator> {
  const admin = service.adminToken;
  const email = `chaos${n}@example.com`;
  await must(service, { method: "POST", path: "/apply", headers: { "cf-connecting-ip": `192.0.2.${10 + n}` }, body: body({ name, email }) }, 201, "apply");
  const list = await must(service, { method: "GET", path: "/admin/applications?status=pending", token: admin }, 200, "applications");
  const id = list.applications.find((a: { email: string }) => a.email === email).id;
  const approved = await must(service, { method: "POST", path: `/admin/applications/${id}/approve`, token: admin }, 200, "approve");
  await must(service, { method: "POST", path: `/admin/operators/${approved.operator.id}`, token: admin, body: body(LIMITS) }, 200, "limits");
  return { id: approved.operator.id, key: approved.api_key };
}

/** Operators and agents, before the first kill (not part of the load). */
async function setup(service: ChaosService, options: ChaosOptions): Promise<Omit<RunContext, "service" | "plan" | "log" | "startedAt">> {
  const owners: Operator[] = [];
  const reporters: Operator[] = [];
  for (let i = 0; i < options.owners; i++) owners.push(await operator(service, i, `Chaos owner ${i}`));
  for (let i = 0; i < options.reporters; i++) reporters.push(await operator(service, options.owners + i, `Chaos reporter ${i}`));
  const agents: { sid: string; owner: number }[] = [];
  const registered = new Map<string, { modelProvider: string; modelName: string; tools: string[] }>();
  for (let i = 0; i < options.agents; i++) {
    const owner = i % owners.length;
    const config = { modelProvider: "anthropic", modelName: `registered-${i}`, tools: ["search"] };
    const made = await must(service, { method: "POST", path: "/register", token: owners[owner].key, body: body({ name: `Chaos agent ${i}`, ...config }) }, 201, "register");
    agents.push({ sid: made.sid, owner });
    registered.set(made.sid, config);
  }
  return { adminToken: service.adminToken, owners, reporters, agents, registered, acknowledged: new Map(), disputes: [] };
}

/** What an answer acknowledged: the reports it stored (marker → transaction id). */
function noteAnswer(run: RunContext, p: Planned, a: Attempt): void {
  if (!a.answered) return;
  const reporterIndex = (token: string | undefined) => run.reporters.findIndex((r) => r.key === token);
  if (p.kind === "report" && a.status === 201 && a.json?.transaction_id) {
    const item = p.reports[0];
    run.acknowledged.set(item.marker, { transactionId: a.json.transaction_id, reporter: reporterIndex(p.req.token), sid: item.sid });
  }
  if (p.kind === "batch" && a.status === 200 && Array.isArray(a.json?.results)) {
    a.json.results.forEach((r: any, i: number) => {
      if (r.status === 201 && r.transaction_id) run.acknowledged.set(p.reports[i].marker, { transactionId: r.transaction_id, reporter: reporterIndex(p.req.token), sid: p.reports[i].sid });
    });
  }
}

async function attempt(run: RunContext, p: Planned): Promise<Attempt> {
  const a = await send(run.service.url, p.req, run.service.starts);
  p.attempts.push(a);
  noteAnswer(run, p, a);
  return a;
}

/**
 * Sends the plan with `concurrency` workers. At each kill point the service is killed while requests
 * are in flight: "during a batch" waits until a batch is on the wire; the others kill once the
 * point's request is sent and the workers are busy. Sending pauses while the service is down.
 */
async function drive(run: RunContext, options: ChaosOptions): Promise<void> {
  const random = randomFor("chaos-kills", options.seed);
  const { plan, service } = run;
  const killAt = options.kills.map((k) => ({ ...k, index: Math.max(1, Math.floor(plan.length * k.at)) }));
  let next = 0;
  let gate: Promise<void> | null = null;
  const inFlight = new Set<Planned>();
  let killing = false;

  const kill = async (kind: string) => {
    killing = true;
    let release!: () => void;
    gate = new Promise((r) => (release = r));
    const inflight = [...inFlight].map((p) => p.kind);
    await service.kill();
    run.log(`kill ${service.kills} (${kind}) at request ${next}: ${inflight.length} in flight (${inflight.filter((k) => k === "batch").length} batches)`);
    await service.start();
    gate = null;
    killing = false;
    release();
  };

  let pendingKill: Promise<void> | null = null;
  const worker = async () => {
    for (;;) {
      while (gate) await gate;
      if (next >= plan.length) return;
      const p = plan[next++];
      const point = killAt.find((k) => k.index === p.id);
      if (p.resolve) {
        const req = p.resolve(run);
        if (!req) continue;
        p.req = req;
      }
      inFlight.add(p);
      const sending = attempt(run, p).finally(() => inFlight.delete(p));
      if (point && !killing) {
        killing = true;
        const waitForBatch = async () => {
          if (point.kind === "during a batch") {
            const until = Date.now() + 20_000;
            while (![...inFlight].some((q) => q.kind === "batch") && Date.now() < until) await sleep(5);
          }
          // A batch takes a few hundred milliseconds here: the kill comes while it is being applied.
          await sleep(point.kind === "during a batch" ? 5 + Math.floor(random() * 30) : 20 + Math.floor(random() * 120));
          await kill(point.kind);
        };
        pendingKill = waitForBatch();
      }
      await sending;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  if (pendingKill) await pendingKill;
}

/** Retries every unanswered keyed request until it is answered (the service may be down a moment). */
async function retryUnanswered(run: RunContext): Promise<{ retried: number; stillUnanswered: number }> {
  const unanswered = run.plan.filter((p) => p.keyed && p.attempts.length > 0 && !p.attempts.some((a) => a.answered));
  for (let round = 0; round < 3; round++) {
    const left = unanswered.filter((p) => !p.attempts.some((a) => a.answered));
    if (left.length === 0) break;
    await Promise.all(left.map((p) => attempt(run, p)));
  }
  return { retried: unanswered.length, stillUnanswered: unanswered.filter((p) => !p.attempts.some((a) => a.answered)).length };
}

/** Re-sends acknowledged keyed requests (seeded choice): each must answer what it answered first. */
async function probeReplays(run: RunContext, count: number, seed: string): Promise<void> {
  const random = randomFor("chaos-probes", seed);
  const candidates = run.plan.filter((p) => p.keyed && p.attempts.some((a) => a.answered && a.status < 300));
  const chosen = candidates.filter(() => random() < count / Math.max(1, candidates.length)).slice(0, count);
  for (let i = 0; i < chosen.length; i += 8) {
    await Promise.all(chosen.slice(i, i + 8).map(async (p) => (p.probe = await send(run.service.url, p.req, run.service.starts))));
  }
}

export async function runChaos(options: ChaosOptions, root: string, log: (line: string) => void): Promise<ChaosReport> {
  const service = new ChaosService({ root, log });
  const onSignal = () => {
    service.dispose(true);
    process.exit(130);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const startedAt = Date.now();
  try {
    await service.prepare();
    await service.start();
    const ctx = await setup(service, options);
    const run: RunContext = { ...ctx, service, plan: [], log, startedAt };
    run.plan = makePlan(options, run);
    // The webhook is registered ahead of the load, while its host resolves to a public address (a
    // registration is refused for a loopback one); every delivery later resolves to loopback and is
    // refused by the guard before it connects: the run never leaves the machine.
    const hook = run.plan.find((p) => p.kind === "webhook");
    if (hook) {
      run.plan.splice(run.plan.indexOf(hook), 1);
      if (service.doh) {
        await service.doh.publicWhile(WEBHOOK_HOST, () => attempt(run, hook));
        run.webhook = hook;
      }
    }
    log(`setup: ${options.owners + options.reporters} operators, ${options.agents} agents; load of ${run.plan.length} requests`);
    await drive(run, options);
    if (!service.running) await service.start();
    const retries = await retryUnanswered(run);
    log(`retried ${retries.retried} unanswered keyed requests (${retries.stillUnanswered} still unanswered)`);
    await probeReplays(run, options.replayProbes, options.seed);
    return await checkRun(run, retries, options);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await service.dispose();
  }
}

