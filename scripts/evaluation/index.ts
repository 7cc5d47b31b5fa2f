// `npm run evaluate`'s engine (DESIGN section 4, "Proof"): the two protocols, the metrics beside the
// baselines, the targets on OTC, and the tables. No I/O: scripts/evaluate.ts reads and writes files;
// test/domain/evaluate.test.ts runs it on a fixture and on a slice of OTC.

import { auc, averagePrecision, fairnessGoodness, receivedStats } from "./metrics";
import { parseLabels, parseNetwork, type Rating } from "./parse";
import { replayNetwork, type Face } from "./replay";

export { InputError, parseLabels, parseNetwork, type Rating } from "./parse";
export { auc, averagePrecision, fairnessGoodness } from "./metrics";

export interface ProtocolOutput {
  users: { id: number; composite: number; s: number; recommendation: string; label: 1 | -1 | null }[];
  ratings: { line: number; before: Face }[];
  metrics: Metrics;
}

export interface Shares {
  n: number;
  caution: number;
  clear: number;
  cautionShare: number;
  clearShare: number;
}

export interface Metrics {
  users: number;
  ratings: number;
  /** Per scorer: the model's composite and the baselines (fraud = positive). */
  auc: Record<Scorer, number>;
  ap: Record<Scorer, number>;
  fraud: Shares;
  benign: Shares;
  online: { ratings: number; negatives: number; auc: { model: number; meanSoFar: number; negativeShareSoFar: number } };
  /** Ratings received by the ratee's recommendation just before, and how many were negative. */
  received: Record<"caution" | "review" | "clear" | "all", { ratings: number; negatives: number; rate: number }>;
  jobRuns: number;
  snapshot: { trusted: number; withCredibility: number; edges: number };
}

export type Scorer = "model" | "meanRating" | "negativeShare" | "fairnessGoodness";
export const SCORERS: Scorer[] = ["model", "meanRating", "negativeShare", "fairnessGoodness"];

export interface EvaluateOptions {
  anchor: number;
}

export interface Evaluation {
  protocols: { kept: ProtocolOutput; removed?: ProtocolOutput };
  /** The label-defining ratings (lines), with labels. */
  labelDefining: number[];
}

/** The anchor and every user it rated +5 or more (T), and the lines of T's ratings of labelled users at ±5 or beyond. */
export function labelDefining(ratings: readonly Rating[], labels: ReadonlyMap<number, number>, anchor: number): number[] {
  const trusted = new Set([anchor]);
  for (const r of ratings) if (r.source === anchor && r.rating >= 5) trusted.add(r.target);
  return ratings.filter((r) => trusted.has(r.source) && labels.has(r.target) && (r.rating >= 5 || r.rating <= -5)).map((r) => r.line);
}

const shares = (n: number, caution: number, clear: number): Shares => ({ n, caution, clear, cautionShare: n ? caution / n : NaN, clearShare: n ? clear / n : NaN });

function runProtocol(ratings: readonly Rating[], labels: ReadonlyMap<number, 1 | -1>, allUsers: Iterable<number>, options: EvaluateOptions): ProtocolOutput {
  const replayed = replayNetwork(ratings, { anchor: options.anchor, users: allUsers });
  const users = replayed.users.map(({ id, face }) => ({ id, composite: face.composite, s: face.s, recommendation: face.recommendation, label: labels.get(id) ?? null }));
  const ordered = [...ratings].sort((a, b) => a.time - b.time || a.line - b.line);
  const byLine = [...ratings].sort((a, b) => a.line - b.line);
  const out: ProtocolOutput["ratings"] = byLine.map((r) => ({ line: r.line, before: replayed.before.get(r.line)! }));

  // Users: the model and the baselines.
  const received = receivedStats(ratings);
  const fg = fairnessGoodness(ratings);
  const labelled = users.filter((u) => u.label !== null);
  const fraudness: Record<Scorer, (u: (typeof users)[number]) => number> = {
    model: (u) => -u.composite,
    meanRating: (u) => {
      const s = received.get(u.id);
      return s ? -s.sum / s.count : 0;
    },
    negativeShare: (u) => {
      const s = received.get(u.id);
      return s ? s.negatives / s.count : 0;
    },
    fairnessGoodness: (u) => -(fg.get(u.id) ?? 0),
  };
  const aucs = {} as Record<Scorer, number>;
  const aps = {} as Record<Scorer, number>;
  for (const s of SCORERS) {
    const items = labelled.map((u) => ({ score: fraudness[s](u), positive: u.label === -1 }));
    aucs[s] = auc(items);
    aps[s] = averagePrecision(items);
  }
  const fraud = labelled.filter((u) => u.label === -1);
  const benign = labelled.filter((u) => u.label === 1);
  const count = (list: typeof users, rec: string) => list.filter((u) => u.recommendation === rec).length;

  // Ratings: online AUC over ratings whose ratee received one before, and negative rates by recommendation.
  const so = new Map<number, { sum: number; count: number; negatives: number }>();
  const online: Record<"model" | "meanSoFar" | "negativeShareSoFar", { score: number; positive: boolean }[]> = { model: [], meanSoFar: [], negativeShareSoFar: [] };
  const rec = { caution: { ratings: 0, negatives: 0, rate: 0 }, review: { ratings: 0, negatives: 0, rate: 0 }, clear: { ratings: 0, negatives: 0, rate: 0 }, all: { ratings: 0, negatives: 0, rate: 0 } };
  let onlineNegatives = 0;
  for (const r of ordered) {
    const negative = r.rating <= -1;
    const face = replayed.before.get(r.line)!;
    for (const k of [face.recommendation, "all"] as const) {
      rec[k].ratings++;
      if (negative) rec[k].negatives++;
    }
    const s = so.get(r.target);
    if (s) {
      online.model.push({ score: -face.composite, positive: negative });
      online.meanSoFar.push({ score: -s.sum / s.count, positive: negative });
      online.negativeShareSoFar.push({ score: s.negatives / s.count, positive: negative });
      if (negative) onlineNegatives++;
    }
    const next = s ?? { sum: 0, count: 0, negatives: 0 };
    next.sum += r.rating;
    next.count++;
    if (negative) next.negatives++;
    so.set(r.target, next);
  }
  for (const k of Object.keys(rec) as (keyof typeof rec)[]) rec[k].rate = rec[k].ratings ? rec[k].negatives / rec[k].ratings : NaN;
  return {
    users,
    ratings: out,
    metrics: {
      users: users.length,
      ratings: ratings.length,
      auc: aucs,
      ap: aps,
      fraud: shares(fraud.length, count(fraud, "caution"), count(fraud, "clear")),
      benign: shares(benign.length, count(benign, "caution"), count(benign, "clear")),
      online: { ratings: online.model.length, negatives: onlineNegatives, auc: { model: auc(online.model), meanSoFar: auc(online.meanSoFar), negativeShareSoFar: auc(online.negativeShareSoFar) } },
      received: rec,
      jobRuns: replayed.jobRuns,
      snapshot: replayed.snapshot,
    },
  };
}

/** Both protocols (only `kept` without labels). */
export function evaluate(ratings: readonly Rating[], labels: ReadonlyMap<number, 1 | -1> | null, options: EvaluateOptions): Evaluation {
  const users = new Set<number>([...ratings.flatMap((r) => [r.source, r.target]), ...(labels?.keys() ?? [])]);
  const kept = runProtocol(ratings, labels ?? new Map(), users, options);
  if (!labels) return { protocols: { kept }, labelDefining: [] };
  const defining = labelDefining(ratings, labels, options.anchor);
  const drop = new Set(defining);
  const removed = runProtocol(
    ratings.filter((r) => !drop.has(r.line)),
    labels,
    users,
    options,
  );
  return { protocols: { kept, removed }, labelDefining: defining };
}

export function evaluateText(network: string, labels: string | null, options: EvaluateOptions & { networkName?: string; labelsName?: string }): Evaluation {
  const ratings = parseNetwork(network, options.networkName);
  const parsedLabels = labels === null ? null : parseLabels(labels, options.labelsName);
  return evaluate(ratings, parsedLabels, options);
}

/** A target of DESIGN section 4's table on OTC: what it reads, its bar, and whether it is met. */
export interface Target {
  name: string;
  value: string;
  target: string;
  pass: boolean;
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

export function otcTargets(e: Evaluation): Target[] {
  const kept = e.protocols.kept.metrics;
  const removed = e.protocols.removed!.metrics;
  const t = (name: string, value: string, target: string, pass: boolean): Target => ({ name, value, target, pass });
  return [
    t("fraud AUC, label-defining ratings removed", removed.auc.model.toFixed(3), "≥ 0.96", removed.auc.model >= 0.96),
    t("fraud AUC, kept", kept.auc.model.toFixed(3), "≥ 0.99", kept.auc.model >= 0.99),
    t("fraudsters in caution (removed)", pct(removed.fraud.cautionShare), "≥ 40%", removed.fraud.cautionShare >= 0.4),
    t("fraudsters in clear (removed)", pct(removed.fraud.clearShare), "≤ 6%", removed.fraud.clearShare <= 0.06),
    t("benign in clear (removed)", pct(removed.benign.clearShare), "≥ 80%", removed.benign.clearShare >= 0.8),
    t("benign in caution (removed)", `${removed.benign.caution} users`, "≤ 3 users", removed.benign.caution <= 3),
    t(
      "online AUC (kept) vs mean rating so far",
      `${kept.online.auc.model.toFixed(3)} vs ${kept.online.auc.meanSoFar.toFixed(3)}`,
      "≥ baseline − 0.01",
      kept.online.auc.model >= kept.online.auc.meanSoFar - 0.01,
    ),
    t("negative rate of ratings received in caution (kept)", pct(kept.received.caution.rate), "≥ 85%", kept.received.caution.rate >= 0.85),
    t("negative rate of ratings received in clear (kept)", pct(kept.received.clear.rate), "≤ 6%", kept.received.clear.rate <= 0.06),
  ];
}

const f3 = (x: number) => (Number.isNaN(x) ? "–" : x.toFixed(3));

/** The metrics table of one protocol: ours beside the baselines. */
export function formatProtocol(name: string, m: Metrics): string {
  const rows: string[][] = [
    ["fraud AUC (users)", f3(m.auc.model), f3(m.auc.meanRating), f3(m.auc.negativeShare), f3(m.auc.fairnessGoodness)],
    ["fraud AP (users)", f3(m.ap.model), f3(m.ap.meanRating), f3(m.ap.negativeShare), f3(m.ap.fairnessGoodness)],
    [`fraudsters in caution / clear (${m.fraud.n})`, `${pct(m.fraud.cautionShare)} / ${pct(m.fraud.clearShare)}`, "–", "–", "–"],
    [`benign in clear / caution (${m.benign.n})`, `${pct(m.benign.clearShare)} / ${m.benign.caution} users (${pct(m.benign.cautionShare)})`, "–", "–", "–"],
    [`online AUC (${m.online.ratings} ratings, ${m.online.negatives} negative)`, f3(m.online.auc.model), `${f3(m.online.auc.meanSoFar)} (so far)`, `${f3(m.online.auc.negativeShareSoFar)} (so far)`, "–"],
    [
      "negative rate of ratings received in caution / review / clear",
      `${pct(m.received.caution.rate)} (${m.received.caution.ratings}) / ${pct(m.received.review.rate)} (${m.received.review.ratings}) / ${pct(m.received.clear.rate)} (${m.received.clear.ratings})`,
      `base rate ${pct(m.received.all.rate)}`,
      "–",
      "–",
    ],
  ];
  const head = `| ${name} | version 4 | mean rating received | share of negatives | fairness-goodness |`;
  return [head, "| --- | --- | --- | --- | --- |", ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");
}
