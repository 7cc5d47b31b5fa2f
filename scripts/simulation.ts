// The seeded simulation of the scoring model (docs/scoring.md, "Simulation"). It drives the model's
// own functions as the agent's Durable Object does (k counted per reporter over the damping window),
// on the population DESIGN section 4 fixes, and measures every attack and calibration target.
// `npm run simulate` runs it at full size; test/domain/simulation.test.ts at a smaller one.

import {
  MODEL,
  applyConfigChange,
  applyReport,
  baseFor,
  emptyEvidence,
  evidenceFactor,
  independentContribution,
  operatorScore,
  scoreOf,
  type AgentEvidence,
  type Outcome,
  type ReportInput,
  type ScoreView,
  type SignalDimension,
} from "../src/domain/model";

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
export const T0 = Date.UTC(2026, 0, 1);

// ---------------------------------------------------------------------------------------------
// Seeded randomness: sfc32 seeded from a hash of a key, so every agent has its own stream and a
// change in one scenario never shifts the draws of another.

export type Random = () => number;

export function randomFor(...key: (string | number)[]): Random {
  let h = 1779033703;
  const text = key.join("/");
  for (let i = 0; i < text.length; i++) {
    h = Math.imul(h ^ text.charCodeAt(i), 3432918353);
    h = (h << 13) | (h >>> 19);
  }
  const mix = () => {
    h = Math.imul(h ^ (h >>> 16), 2246822507);
    h = Math.imul(h ^ (h >>> 13), 3266489909);
    return (h ^= h >>> 16) >>> 0;
  };
  let a = mix();
  let b = mix();
  let c = mix();
  let d = mix();
  return () => {
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
}

function normal(random: Random, sd: number): number {
  const u = 1 - random();
  const v = random();
  return sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

const uniformInt = (random: Random, min: number, max: number) => min + Math.floor(random() * (max - min + 1));

// ---------------------------------------------------------------------------------------------
// The population (DESIGN section 4; the choices it leaves open are documented in docs/scoring.md).

export const POPULATION = {
  reporters: { min: 3, max: 10 },
  verifiedShare: 0.8,
  /** Signal units (0-1000). */
  biasSd: 60,
  noiseSd: { min: 100, max: 150 },
  mistakenFailureShare: 0.01,
  signalShare: { reliability: 1, quality: 1, security: 0.3, financial: 0.2 } satisfies Record<SignalDimension, number>,
  /** Success share per profile; the rest splits as the bad profile's: failure 30 : error 15 : timeout 10 : partial 5. */
  profiles: { good: 0.95, fair: 0.8, bad: 0.4, awful: 0.2 },
  failureSplit: { failure: 30, error: 15, timeout: 10, partial: 5 },
  /**
   * A signal's mean. `profile` (used): 1000 × the agent's success share, the reporter rating the
   * agent's quality on that dimension. `outcome` (for comparison, `--signals <failure>:<success>`):
   * failure + (success − failure) × the report's outcome value (success 1, partial 0.5, timeout 0.25,
   * error 0.1, failure 0), every signal a copy of the outcome.
   */
  signalMean: { kind: "profile" } as SignalMean,
  identityLevel: 0,
} as const;

export type Profile = keyof typeof POPULATION.profiles;
export const PROFILES = Object.keys(POPULATION.profiles) as Profile[];
export type SignalMean = { kind: "outcome"; failure: number; success: number } | { kind: "profile" };

interface SimReporter {
  id: number;
  verified: boolean;
  bias: number;
  noiseSd: number;
}

/** An agent owned by an operator that never reports on it, with its honest reporters. */
export interface SimAgent {
  profile: Profile;
  ownerId: number;
  reporters: SimReporter[];
  random: Random;
  signalMean: SignalMean;
}

// Operator ids: honest reporters are 1-10. (Small ids keep V8's integer-keyed maps compact.)
const OWNER_ID = 11;
const COLLUDER_IDS = [12, 13];
const COMPETITOR_ID = 14;

export function makeAgent(
  seed: string,
  profile: Profile,
  index: number,
  options: { reporters?: number; signalMean?: SignalMean } = {},
): SimAgent {
  const p = POPULATION;
  const random = randomFor(seed, profile, index, options.reporters ?? "any");
  const n = options.reporters ?? uniformInt(random, p.reporters.min, p.reporters.max);
  const reporters: SimReporter[] = [];
  for (let i = 0; i < n; i++) {
    reporters.push({
      id: i + 1,
      verified: random() < p.verifiedShare,
      bias: normal(random, p.biasSd),
      noiseSd: p.noiseSd.min + random() * (p.noiseSd.max - p.noiseSd.min),
    });
  }
  return { profile, ownerId: OWNER_ID, reporters, random, signalMean: options.signalMean ?? p.signalMean };
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

/** The reporter's 0-1000 rating: centred on the agent's success share (or the outcome), plus its bias and noise. */
function drawSignal(agent: SimAgent, r: SimReporter, outcome: Outcome): number {
  const m = agent.signalMean;
  const mean =
    m.kind === "outcome" ? m.failure + (m.success - m.failure) * MODEL.outcomeValue[outcome] : 1000 * POPULATION.profiles[agent.profile];
  return Math.min(1000, Math.max(0, Math.round(mean + r.bias + normal(agent.random, r.noiseSd))));
}

/** A mistaken failure is reported as a failure, signals included. */
function honestReport(agent: SimAgent, r: SimReporter, at: number): ReportInput {
  const random = agent.random;
  const outcome = random() < POPULATION.mistakenFailureShare ? "failure" : drawOutcome(random, agent.profile);
  const signals: Partial<Record<SignalDimension, number>> = {};
  for (const d of ["reliability", "quality", "security", "financial"] as const) {
    if (random() < POPULATION.signalShare[d]) signals[d] = drawSignal(agent, r, outcome);
  }
  return {
    reporter: r.id,
    at,
    outcome,
    signals,
    base: baseFor({ isOwner: false, verified: r.verified }),
    evidence: evidenceFactor(false),
    penalty: 1,
  };
}

/** Every reporter reports once a day, at a random time of that day. Endless, in time order. */
export function* honestStream(agent: SimAgent, from: number): Generator<ReportInput> {
  for (let day = 0; ; day++) {
    const start = from + day * DAY;
    const slots = agent.reporters.map((r) => ({ r, at: start + Math.floor(agent.random() * DAY) }));
    slots.sort((x, y) => x.at - y.at || x.r.id - y.r.id);
    for (const { r, at } of slots) yield honestReport(agent, r, at);
  }
}

/** An attacker's report: verified, with a receipt; success with every signal 1000, or failure with 0. */
function attackReport(reporter: number, at: number, kind: "praise" | "slander"): ReportInput {
  const v = kind === "praise" ? 1000 : 0;
  return {
    reporter,
    at,
    outcome: kind === "praise" ? "success" : "failure",
    signals: { reliability: v, quality: v, security: v, financial: v },
    base: baseFor({ isOwner: false, verified: true }),
    evidence: evidenceFactor(true),
    penalty: 1,
  };
}

/**
 * Each attacker's reports from `from` until `until`: first `burst` reports a minute apart (enough to
 * fill its cap at once), then `perDay` a day, evenly spaced; the attackers a little apart.
 */
function* attackStream(
  attackers: number[],
  kind: "praise" | "slander",
  volume: { burst: number; perDay: number },
  from: number,
  until: number,
): Generator<ReportInput> {
  const stagger = Math.floor(60_000 / (attackers.length + 1));
  for (let i = 0; i < volume.burst; i++) {
    for (let j = 0; j < attackers.length; j++) yield attackReport(attackers[j], from + i * 60_000 + j * stagger, kind);
  }
  const every = Math.floor(DAY / volume.perDay);
  for (let at = from + volume.burst * 60_000; at < until; at += every) {
    for (let j = 0; j < attackers.length; j++) yield attackReport(attackers[j], at + j * stagger, kind);
  }
}

/** Attacking an established agent: fill the cap at once, then keep it full. */
const SATURATE = { burst: 50, perDay: 4 };

/** Two time-ordered streams as one (ties: the first stream first). */
function* merge(a: Iterator<ReportInput>, b: Iterator<ReportInput>): Generator<ReportInput> {
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

/** The agent's object as the service runs it: the evidence, and k counted per reporter. */
export class LiveAgent {
  state: AgentEvidence;
  private recent = new Map<number, number[]>();

  constructor(
    readonly ownerId: number | null,
    createdAt: number,
    readonly identityLevel: number = POPULATION.identityLevel,
  ) {
    this.state = emptyEvidence(createdAt);
  }

  /** Reports arrive in time order, so the reporter's earlier reports leave the window from the front. */
  report(input: ReportInput): void {
    const since = input.at - MODEL.dampingWindowMs;
    const earlier = this.recent.get(input.reporter) ?? [];
    while (earlier.length > 0 && !(earlier[0] > since)) earlier.shift();
    this.state = applyReport(this.state, input, this.ownerId, earlier.length).state;
    earlier.push(input.at);
    this.recent.set(input.reporter, earlier);
  }

  providerChange(at: number): void {
    this.state = applyConfigChange(this.state, ["provider_change"], at);
  }

  view(now: number): ScoreView {
    return scoreOf(this.state, { now, ownerId: this.ownerId, identityLevel: this.identityLevel, operatorScore: 500 });
  }

  /** An independent copy (the evidence is never changed in place, so it is shared). */
  fork(): LiveAgent {
    const copy = new LiveAgent(this.ownerId, this.state.at, this.identityLevel);
    copy.state = this.state;
    for (const [reporter, times] of this.recent) copy.recent.set(reporter, [...times]);
    return copy;
  }
}

/** Feeds a stream to an agent until `until`, looking at its score after every report. */
function drive(agent: LiveAgent, stream: Iterator<ReportInput>, until: number, watch: (v: ScoreView) => boolean): { hit: boolean; max: number } {
  let hit = false;
  let max = -Infinity;
  for (let r = stream.next(); !r.done && r.value.at < until; r = stream.next()) {
    agent.report(r.value);
    const view = agent.view(r.value.at);
    if (watch(view)) hit = true;
    max = Math.max(max, view.composite);
  }
  return { hit, max };
}

// ---------------------------------------------------------------------------------------------
// Statistics.

export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** P(good > bad) + ½·P(tie), from ranks. */
export function auc(good: number[], bad: number[]): number {
  const all = [...good.map((v) => ({ v, good: true })), ...bad.map((v) => ({ v, good: false }))].sort((x, y) => x.v - y.v);
  let rankSum = 0;
  for (let i = 0; i < all.length; ) {
    let j = i;
    while (j < all.length && all[j].v === all[i].v) j++;
    const rank = (i + 1 + j) / 2;
    for (let k = i; k < j; k++) if (all[k].good) rankSum += rank;
    i = j;
  }
  return (rankSum - (good.length * (good.length + 1)) / 2) / (good.length * bad.length);
}

// ---------------------------------------------------------------------------------------------
// The runs.

export interface SimulationSize {
  /** Agents per profile in the calibration population (DESIGN: 1,000). */
  agentsPerProfile: number;
  /** Good agents (of the population) attacked by one competitor after their 100th report. */
  competitorVictims: number;
  /** Bad agents with 6 honest reporters, in caution at their 40th report, attacked by two colluders. */
  colluderVictims: number;
  /** Operators, each owning one good agent, that add 10 self-reported dummy agents. */
  operators: number;
  /** Days each attack runs. */
  attackDays: number;
}

export const FULL: SimulationSize = { agentsPerProfile: 1000, competitorVictims: 1000, colluderVictims: 1000, operators: 100, attackDays: 30 };
export const SMALL: SimulationSize = { agentsPerProfile: 200, competitorVictims: 50, colluderVictims: 50, operators: 10, attackDays: 14 };

export interface SimulationOptions {
  seed: string;
  size: SimulationSize;
  signalMean?: SignalMean;
}

export interface Row {
  /** Short stable key, for tests. */
  key: string;
  attack: string;
  target: string;
  measured: string;
  pass: boolean;
  /** The measured figures behind `pass`, for tests. */
  figures: Record<string, number>;
}

export interface SimulationResult {
  options: SimulationOptions;
  rows: Row[];
  /** Further figures, not targets. */
  notes: string[];
}

interface ProfileRun {
  /** The report at which each agent was first clear (Infinity: not within 100 reports). */
  firstClear: number[];
  everCaution: number;
  cautionAt100: number;
  compositeAt: Record<10 | 30 | 100, number[]>;
  /** Agents in caution at their 40th report, as they were then. */
  cautionAt40: { agent: LiveAgent; at: number }[];
  /** Good agents at their 100th report, with their honest streams, for the competitor. */
  at100: { agent: LiveAgent; stream: Generator<ReportInput>; at: number }[];
}

const CHECKPOINTS = [10, 30, 100] as const;

function runProfile(options: SimulationOptions, profile: Profile): ProfileRun {
  const { seed, size } = options;
  const run: ProfileRun = { firstClear: [], everCaution: 0, cautionAt100: 0, compositeAt: { 10: [], 30: [], 100: [] }, cautionAt40: [], at100: [] };
  for (let i = 0; i < size.agentsPerProfile; i++) {
    const sim = makeAgent(seed, profile, i, { signalMean: options.signalMean });
    const agent = new LiveAgent(sim.ownerId, T0);
    const stream = honestStream(sim, T0);
    let firstClear = Infinity;
    let everCaution = false;
    for (let n = 1; n <= 100; n++) {
      const report = stream.next().value as ReportInput;
      agent.report(report);
      const view = agent.view(report.at);
      if (view.recommendation === "clear" && firstClear === Infinity) firstClear = n;
      if (view.recommendation === "caution") everCaution = true;
      if ((CHECKPOINTS as readonly number[]).includes(n)) run.compositeAt[n as 10 | 30 | 100].push(view.composite);
      if (n === 40 && view.recommendation === "caution") run.cautionAt40.push({ agent: agent.fork(), at: report.at });
      if (n === 100 && view.recommendation === "caution") run.cautionAt100++;
      if (n === 100 && profile === "good" && i < size.competitorVictims) run.at100.push({ agent, stream, at: report.at });
    }
    run.firstClear.push(firstClear);
    if (everCaution) run.everCaution++;
  }
  return run;
}

/**
 * Whole idle days after `at` until the agent is first out of caution (Infinity: not within 20 years):
 * day by day through the R window (when R, and with it the corroboration bar, can change), then a
 * week at a time, going back day by day into the week where it is first out.
 */
function idleDaysInCaution(agent: LiveAgent, at: number): number {
  const out = (d: number) => agent.view(at + d * DAY).recommendation !== "caution";
  const daily = MODEL.independentReporterWindowMs / DAY + 7;
  for (let d = 1; d <= daily; d++) if (out(d)) return d;
  for (let d = daily + 7; d <= 20 * 365; d += 7) {
    if (!out(d)) continue;
    let first = d;
    while (first - 1 > d - 7 && out(first - 1)) first--;
    return first;
  }
  return Infinity;
}

/** Two colluders join a bad agent with 6 honest reporters when `start` says so; honest reports go on. */
export function colluderAttack(
  options: SimulationOptions,
  start: number | "firstCaution",
  wanted: number,
): { victims: number; clear: number; max: number } {
  const { seed, size } = options;
  let victims = 0;
  let clear = 0;
  let max = -Infinity;
  for (let i = 0; victims < wanted && i < 10 * wanted; i++) {
    const sim = makeAgent(seed, "bad", i, { reporters: 6, signalMean: options.signalMean });
    const agent = new LiveAgent(sim.ownerId, T0);
    const honest = honestStream(sim, T0);
    let at = NaN;
    const last = start === "firstCaution" ? 100 : start;
    for (let n = 1; n <= last; n++) {
      const report = honest.next().value as ReportInput;
      agent.report(report);
      const caution = agent.view(report.at).recommendation === "caution";
      if (caution && (start === "firstCaution" || n === last)) {
        at = report.at;
        break;
      }
    }
    if (Number.isNaN(at)) continue;
    victims++;
    const end = at + size.attackDays * DAY;
    const attack = attackStream(COLLUDER_IDS, "praise", SATURATE, at + 60_000, end);
    const r = drive(agent, merge(honest, attack), end, (v) => v.recommendation === "clear");
    if (r.hit) clear++;
    max = Math.max(max, r.max);
  }
  return { victims, clear, max };
}

const pct = (n: number, of: number) => (of === 0 ? "n/a" : `${((100 * n) / of).toFixed(1)}%`);
const days = (d: number) => (d === Infinity ? "never" : `${d} d`);
const reports = (n: number) => (n === Infinity ? "never" : `${n}`);

export function runSimulation(options: SimulationOptions): SimulationResult {
  const { size } = options;
  const rows: Row[] = [];
  const notes: string[] = [];
  const runs = {} as Record<Profile, ProfileRun>;
  for (const p of PROFILES) runs[p] = runProfile(options, p);
  const cautionAt40 = [...runs.bad.cautionAt40, ...runs.awful.cautionAt40];

  // Four provider flips, one an hour, on every bad or awful agent in caution at its 40th report;
  // the composite is compared with the same agent's at the same time without the flips.
  {
    let stayed = 0;
    let higher = 0;
    for (const { agent, at } of cautionAt40) {
      const flipped = agent.fork();
      let always = true;
      for (let f = 1; f <= 4; f++) {
        flipped.providerChange(at + f * HOUR);
        if (flipped.view(at + f * HOUR).recommendation !== "caution") always = false;
      }
      if (always) stayed++;
      if (flipped.view(at + 4 * HOUR).composite > agent.view(at + 4 * HOUR).composite) higher++;
    }
    rows.push({
      key: "flips",
      attack: `caution agent after 4 provider flips (the ${cautionAt40.length} bad and awful agents in caution at 40 reports)`,
      target: "still caution, composite not higher",
      measured: `still caution ${pct(stayed, cautionAt40.length)}, composite higher ${higher}`,
      pass: cautionAt40.length > 0 && stayed === cautionAt40.length && higher === 0,
      figures: { agents: cautionAt40.length, stayed, higher },
    });
  }

  // The same agents left idle.
  {
    const idle = cautionAt40.map(({ agent, at }) => idleDaysInCaution(agent, at));
    const med = median(idle);
    const min = Math.min(...idle);
    const sorted = [...idle].sort((x, y) => x - y);
    rows.push({
      key: "idle",
      attack: `idle caution agent (40 reports; the same ${cautionAt40.length} bad and awful) until it leaves caution`,
      target: "median ≥ 600 days, minimum ≥ 400",
      measured: `median ${days(med)}, minimum ${days(min)} (${sorted.filter((d) => d < 400).length} below 400)`,
      pass: cautionAt40.length > 0 && med >= 600 && min >= 400,
      figures: { agents: cautionAt40.length, median: med, minimum: min, below400: sorted.filter((d) => d < 400).length },
    });
    notes.push(`idle: the 10 shortest stays in caution ${sorted.slice(0, 10).join(", ")} days`);
  }

  // Two colluding operators on a new agent, at three volumes; the owner a third party or one of them.
  {
    let clear = 0;
    let runsCount = 0;
    let max = -Infinity;
    for (const perDay of [1, 24, 1440]) {
      for (const owner of [OWNER_ID, COLLUDER_IDS[0]]) {
        const agent = new LiveAgent(owner, T0, 2);
        const r = drive(agent, attackStream(COLLUDER_IDS, "praise", { burst: 0, perDay }, T0, T0 + size.attackDays * DAY), Infinity, (v) => v.recommendation === "clear");
        runsCount++;
        if (r.hit) clear++;
        max = Math.max(max, r.max);
      }
    }
    rows.push({
      key: "colluders-new",
      attack: `two colluding operators, new agent (1, 24 and 1,440 reports a day each for ${size.attackDays} days)`,
      target: "never clear",
      measured: `clear in ${clear} of ${runsCount} runs; highest composite ${max}`,
      pass: clear === 0,
      figures: { runs: runsCount, clear, highest: max },
    });
  }

  // Two colluders join a caution agent with 6 honest reporters, which keep reporting.
  {
    const r = colluderAttack(options, 40, size.colluderVictims);
    rows.push({
      key: "colluders-caution",
      attack: `two colluders (50 reports each at once, then 4 a day, ${size.attackDays} days) vs ${r.victims} bad agents with 6 honest reporters, in caution at 40 reports`,
      target: "never clear, any volume",
      measured: `clear ${r.clear} of ${r.victims}; highest composite ${r.max}`,
      pass: r.victims > 0 && r.clear === 0,
      figures: { agents: r.victims, clear: r.clear, highest: r.max },
    });
    for (const start of ["firstCaution", 60, 100] as const) {
      const v = colluderAttack(options, start, size.colluderVictims);
      notes.push(
        `colluders joining ${start === "firstCaution" ? "at the first report that puts the agent in caution" : `at the ${start}th report`}: ` +
          `clear ${v.clear} of ${v.victims}; highest composite ${v.max}`,
      );
    }
  }

  // One competitor slanders a new agent (three volumes), and good agents after their 100th report.
  {
    let newCaution = 0;
    for (const perDay of [1, 24, 1440]) {
      const agent = new LiveAgent(OWNER_ID, T0);
      const stream = attackStream([COMPETITOR_ID], "slander", { burst: 0, perDay }, T0, T0 + size.attackDays * DAY);
      if (drive(agent, stream, Infinity, (v) => v.recommendation === "caution").hit) newCaution++;
    }
    let caution = 0;
    for (const { agent, stream, at } of runs.good.at100) {
      const end = at + size.attackDays * DAY;
      const attack = attackStream([COMPETITOR_ID], "slander", SATURATE, at + 60_000, end);
      if (drive(agent, merge(stream, attack), end, (v) => v.recommendation === "caution").hit) caution++;
    }
    rows.push({
      key: "competitor",
      attack: `one competitor (new agent: 1, 24, 1,440 reports a day; good agents with 100 reports: 50 at once, then 4 a day; ${size.attackDays} days)`,
      target: "never caution",
      measured: `new agent: caution in ${newCaution} of 3 runs; ${runs.good.at100.length} good agents: ${caution} ever caution`,
      pass: newCaution === 0 && caution === 0,
      figures: { newAgentCaution: newCaution, agents: runs.good.at100.length, caution },
    });
  }

  // The owner sends 1,000 self-reports on its own new agent within a day (receipts, identity level 2).
  {
    const agent = new LiveAgent(OWNER_ID, T0, 2);
    const r = drive(agent, attackStream([OWNER_ID], "praise", { burst: 0, perDay: 1000 }, T0, T0 + DAY), Infinity, (v) => v.recommendation === "clear");
    rows.push({
      key: "self-reports",
      attack: "owner's 1,000 self-reports on its own agent (one day, receipts)",
      target: "composite ≤ 700, never clear",
      measured: `highest composite ${r.max}, clear ${r.hit ? "yes" : "never"}`,
      pass: r.max <= 700 && !r.hit,
      figures: { highest: r.max, clear: r.hit ? 1 : 0 },
    });
  }

  // An operator registers 10 dummy agents and self-reports on each every hour for 7 days.
  {
    const end = T0 + 7 * DAY;
    const dummies = [];
    for (let i = 0; i < 10; i++) {
      const agent = new LiveAgent(OWNER_ID, T0);
      drive(agent, attackStream([OWNER_ID], "praise", { burst: 0, perDay: 24 }, T0 + i * 60_000, end), Infinity, () => false);
      dummies.push(independentContribution(agent.state, OWNER_ID, end));
    }
    let worst = Math.abs(operatorScore(dummies) - operatorScore([]));
    for (let i = 0; i < size.operators; i++) {
      const sim = makeAgent(options.seed, "good", i, { signalMean: options.signalMean });
      const agent = new LiveAgent(sim.ownerId, T0);
      drive(agent, honestStream(sim, T0), end, () => false);
      const own = independentContribution(agent.state, sim.ownerId, end);
      worst = Math.max(worst, Math.abs(operatorScore([own, ...dummies]) - operatorScore([own])));
    }
    rows.push({
      key: "operator",
      attack: `operator score after 7 days of hourly self-reports on 10 dummy agents (a new operator; ${size.operators} owning a good agent)`,
      target: "moves ≤ 10",
      measured: `moves at most ${worst}`,
      pass: worst <= 10,
      figures: { moves: worst },
    });
  }

  // Calibration on the population.
  {
    const n = size.agentsPerProfile;
    const good = runs.good;
    const med = median(good.firstClear);
    rows.push({
      key: "good",
      attack: "good agents (95% success)",
      target: "clear after median ≤ 18 reports, ever caution ≤ 0.5%",
      measured: `clear after median ${reports(med)} reports, ever caution ${pct(good.everCaution, n)} (in 100 reports)`,
      pass: med <= 18 && good.everCaution <= 0.005 * n,
      figures: { medianReportsToClear: med, everCautionShare: good.everCaution / n },
    });
    rows.push({
      key: "bad",
      attack: "40%-success agents after 100 reports",
      target: "caution ≥ 85%",
      measured: `caution ${pct(runs.bad.cautionAt100, n)}`,
      pass: runs.bad.cautionAt100 >= 0.85 * n,
      figures: { cautionShare: runs.bad.cautionAt100 / n },
    });
    const aucs = CHECKPOINTS.map((k) => auc(good.compositeAt[k], runs.bad.compositeAt[k]));
    rows.push({
      key: "auc",
      attack: "AUC good vs bad at 10 / 30 / 100 reports (composite)",
      target: "≥ 0.99 each",
      measured: aucs.map((a) => a.toFixed(4)).join(" / "),
      pass: aucs.every((a) => a >= 0.99),
      figures: { at10: aucs[0], at30: aucs[1], at100: aucs[2] },
    });
    for (const p of PROFILES) {
      const r = runs[p];
      notes.push(
        `${p} (${POPULATION.profiles[p] * 100}% success): clear after median ${reports(median(r.firstClear))} reports, ` +
          `ever caution ${pct(r.everCaution, n)}, caution at 100 reports ${pct(r.cautionAt100, n)}, ` +
          `median composite at 10 / 30 / 100 reports ${CHECKPOINTS.map((k) => median(r.compositeAt[k])).join(" / ")}`,
      );
    }
  }
  return { options, rows, notes };
}

export function formatTable(result: SimulationResult): string {
  const lines = ["| Attack or property | Target | Measured | |", "| --- | --- | --- | --- |"];
  for (const r of result.rows) lines.push(`| ${r.attack} | ${r.target} | ${r.measured} | ${r.pass ? "pass" : "**miss**"} |`);
  return lines.join("\n");
}
