// The simulated population (docs/scoring.md, "Version 4: simulation"): agents by profile, their
// honest reporters drawn from a pool of operators of which a share holds credibility (receipted
// dealings in the world), and the report streams of honest reporters and of attackers.

import { MODEL_V4, type Outcome, type SignalDimension } from "../../src/domain/model/index";
import { normal, randomFor, uniformInt, type Random } from "./random";

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
export const T0 = Date.UTC(2026, 0, 1);

export const POPULATION = {
  reporters: { min: 3, max: 10 },
  verifiedShare: 0.8,
  /** Signal units (0-1000). */
  biasSd: 60,
  noiseSd: { min: 100, max: 150 },
  mistakenFailureShare: 0.01,
  signalShare: { reliability: 1, quality: 1, security: 0.3, financial: 0.2 } satisfies Record<SignalDimension, number>,
  /** Success share per profile; `scam` is an exit scam's agent after it turns. Every other report fails outright (as the design's prototype had it). */
  profiles: { good: 0.95, fair: 0.8, bad: 0.4, awful: 0.2, scam: 0 },
  failureSplit: { failure: 60, error: 0, timeout: 0, partial: 0 },
  /** Share of an agent's honest reporters drawn from the operators holding credibility. */
  credibleShare: 0.7,
  identityLevel: 0,
} as const;

export type Profile = keyof typeof POPULATION.profiles;
export const PROFILES = ["good", "fair", "bad", "awful"] as const satisfies readonly Profile[];

/**
 * A signal's mean. `profile`: 1000 × the agent's success share, the reporter rating the agent on that
 * dimension. `outcome`: failure + (success − failure) × the report's outcome value, a copy of the outcome.
 */
export type SignalMean = { kind: "outcome"; failure: number; success: number } | { kind: "profile" };
export const SIGNAL_MODELS: Record<"profile" | "outcome", SignalMean> = {
  profile: { kind: "profile" },
  outcome: { kind: "outcome", failure: 0, success: 1000 },
};

/** An operator of the honest pool: its id, and whether it is verified. */
export interface PoolReporter {
  id: number;
  verified: boolean;
}

export interface Pool {
  credible: PoolReporter[];
  fresh: PoolReporter[];
}

export interface SimReporter extends PoolReporter {
  bias: number;
  noiseSd: number;
}

/** An agent owned by an operator that never reports on it, with its honest reporters. */
export interface SimAgent {
  key: string;
  profile: Profile;
  ownerId: number;
  reporters: SimReporter[];
  random: Random;
  signalMean: SignalMean;
  /** From this time on the agent is an exit scam's (0% success). */
  turnsAt?: number;
}

const profileAt = (agent: SimAgent, at: number): Profile => (agent.turnsAt !== undefined && at >= agent.turnsAt ? "scam" : agent.profile);

/** The owner of every population agent: an operator of no world dealings. */
export const OWNER_ID = 90;

export interface AgentOptions {
  reporters?: number;
  signalMean: SignalMean;
  credibleShare?: number;
}

export function makeAgent(seed: string, pool: Pool, profile: Profile, index: number, options: AgentOptions): SimAgent {
  const p = POPULATION;
  const share = options.credibleShare ?? p.credibleShare;
  const random = randomFor(seed, profile, index, options.reporters ?? "any", share);
  const n = options.reporters ?? uniformInt(random, p.reporters.min, p.reporters.max);
  const reporters: SimReporter[] = [];
  const taken = new Set<number>();
  while (reporters.length < n) {
    const from = random() < share ? pool.credible : pool.fresh;
    const r = from[Math.floor(random() * from.length)];
    if (taken.has(r.id)) continue;
    taken.add(r.id);
    reporters.push({ ...r, bias: normal(random, p.biasSd), noiseSd: p.noiseSd.min + random() * (p.noiseSd.max - p.noiseSd.min) });
  }
  reporters.sort((x, y) => x.id - y.id);
  return { key: `${profile}-${index}-${n}-${share}`, profile, ownerId: OWNER_ID, reporters, random, signalMean: options.signalMean };
}

function drawOutcome(random: Random, profile: Profile): Outcome {
  const success = POPULATION.profiles[profile];
  let u = random();
  if (u < success) return "success";
  u = (u - success) / (1 - success);
  const split = POPULATION.failureSplit;
  const total = split.failure + split.error + split.timeout + split.partial;
  let edge = 0;
  for (const o of ["failure", "error", "timeout", "partial"] as const) {
    edge += split[o] / total;
    if (u < edge) return o;
  }
  return "partial";
}

function drawSignal(agent: SimAgent, r: SimReporter, outcome: Outcome, at: number): number {
  const m = agent.signalMean;
  const mean = m.kind === "outcome" ? m.failure + ((m.success - m.failure) * MODEL_V4.outcomeValue[outcome]) / 1000 : 1000 * POPULATION.profiles[profileAt(agent, at)];
  return Math.min(1000, Math.max(0, Math.round(mean + r.bias + normal(agent.random, r.noiseSd))));
}

/** A report as the simulation sends it: the agent's object turns it into the model's input. */
export interface SimReport {
  reporter: number;
  at: number;
  outcome: Outcome;
  signals: Partial<Record<SignalDimension, number>>;
  verified: boolean;
  receipt: boolean;
}

/** A mistaken failure is reported as a failure, signals included. Honest reports carry no receipt. */
function honestReport(agent: SimAgent, r: SimReporter, at: number, receipt: boolean): SimReport {
  const random = agent.random;
  const outcome = random() < POPULATION.mistakenFailureShare ? "failure" : drawOutcome(random, profileAt(agent, at));
  const signals: Partial<Record<SignalDimension, number>> = {};
  for (const d of ["reliability", "quality", "security", "financial"] as const) {
    if (random() < POPULATION.signalShare[d]) signals[d] = drawSignal(agent, r, outcome, at);
  }
  return { reporter: r.id, at, outcome, signals, verified: r.verified, receipt };
}

/** Every reporter reports once a day, at a random time of that day. Endless, in time order. */
export function* honestStream(agent: SimAgent, from: number, receipt = false): Generator<SimReport> {
  for (let day = 0; ; day++) {
    const start = from + day * DAY;
    const slots = agent.reporters.map((r) => ({ r, at: start + Math.floor(agent.random() * DAY) }));
    slots.sort((x, y) => x.at - y.at || x.r.id - y.r.id);
    for (const { r, at } of slots) yield honestReport(agent, r, at, receipt);
  }
}

/** An attacker's report: verified, with a receipt; success with every signal 1000, or failure with 0. */
export function attackReport(reporter: number, at: number, kind: "praise" | "slander"): SimReport {
  const v = kind === "praise" ? 1000 : 0;
  return {
    reporter,
    at,
    outcome: kind === "praise" ? "success" : "failure",
    signals: { reliability: v, quality: v, security: v, financial: v },
    verified: true,
    receipt: true,
  };
}

/**
 * Each attacker's reports from `from` until `until`: first `burst` reports a minute apart, then
 * `perDay` a day, evenly spaced; the attackers a little apart.
 */
export function* attackStream(
  attackers: readonly number[],
  kind: "praise" | "slander",
  volume: { burst: number; perDay: number },
  from: number,
  until: number,
): Generator<SimReport> {
  const stagger = Math.floor(60_000 / (attackers.length + 1));
  for (let i = 0; i < volume.burst; i++) {
    for (let j = 0; j < attackers.length; j++) yield attackReport(attackers[j], from + i * 60_000 + j * stagger, kind);
  }
  const every = Math.floor(DAY / volume.perDay);
  for (let at = from + volume.burst * 60_000; at < until; at += every) {
    for (let j = 0; j < attackers.length; j++) yield attackReport(attackers[j], at + j * stagger, kind);
  }
}

/** Attacking an established agent: fill the cap as fast as the days allow, then keep it full. */
export const SATURATE = { burst: 20, perDay: 4 };

/** Two time-ordered streams as one (ties: the first stream first). */
export function* merge(a: Iterator<SimReport>, b: Iterator<SimReport>): Generator<SimReport> {
  let x = a.next();
  let y = b.next();
  while (!x.done || !y.done) {
    if (!x.done && (y.done || x.value.at <= y.value.at)) {
      yield x.value;
      x = a.next();
    } else if (!y.done) {
      yield y.value;
      y = b.next();
    }
  }
}
