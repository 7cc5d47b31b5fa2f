// The scoring model's vocabulary (version 4 carries its own, so it stands when the older models go):
// dimensions, outcomes, confidences, recommendations, and the one fixed order of reporter keys that
// makes every fold over a map the same however the map was built.

export const DIMENSIONS = ["reliability", "quality", "financial", "security", "stability"] as const;
export type Dimension = (typeof DIMENSIONS)[number];
/** Dimensions a report can carry a signal for; stability comes from the outcome. */
export const SIGNAL_DIMENSIONS = ["reliability", "quality", "financial", "security"] as const;
export type SignalDimension = (typeof SIGNAL_DIMENSIONS)[number];
export const OUTCOMES = ["success", "partial", "failure", "timeout", "error"] as const;
export type Outcome = (typeof OUTCOMES)[number];
export const CONFIDENCES = ["low", "medium", "high"] as const;
export type Confidence = (typeof CONFIDENCES)[number];
export const RECOMMENDATIONS = ["clear", "review", "caution"] as const;
export type Recommendation = (typeof RECOMMENDATIONS)[number];

export function mapDims<T>(f: (d: Dimension) => T): Record<Dimension, T> {
  return { reliability: f("reliability"), quality: f("quality"), financial: f("financial"), security: f("security"), stability: f("stability") };
}

/** Keys in one fixed order: shorter first, then by code unit (decimal ids: numeric order). */
export const idOrder = (x: string, y: string) => x.length - y.length || (x < y ? -1 : x > y ? 1 : 0);

export function requireTime(name: string, t: number): void {
  if (!Number.isFinite(t)) throw new RangeError(`invalid ${name}: ${t}`);
}

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;
/** UTC hour and day numbers of a time (ms since the epoch). */
export const hourOf = (t: number) => Math.floor(t / HOUR_MS);
export const dayOf = (t: number) => Math.floor(t / DAY_MS);
