// The scoring model's vocabulary, shared by every version: the dimensions, outcomes, confidences and
// recommendations, the evidence pair, and the one fixed order of reporters that makes every sum over
// them bit-identical however a stored map was built or parsed.

export const DIMENSIONS = ["reliability", "quality", "financial", "security", "stability"] as const;
export type Dimension = (typeof DIMENSIONS)[number];
/** Dimensions a report can carry a signal for (fields reliabilitySignal etc.); stability comes from the outcome. */
export const SIGNAL_DIMENSIONS = ["reliability", "quality", "financial", "security"] as const;
export type SignalDimension = (typeof SIGNAL_DIMENSIONS)[number];
export const OUTCOMES = ["success", "partial", "failure", "timeout", "error"] as const;
export type Outcome = (typeof OUTCOMES)[number];
export const CONFIDENCES = ["low", "medium", "high"] as const;
export type Confidence = (typeof CONFIDENCES)[number];
export const RECOMMENDATIONS = ["clear", "review", "caution"] as const;
export type Recommendation = (typeof RECOMMENDATIONS)[number];

/** One reporter's evidence on one dimension, above the prior. */
export interface Pair {
  a: number;
  b: number;
}

export function mapDims<T>(f: (d: Dimension) => T): Record<Dimension, T> {
  return {
    reliability: f("reliability"),
    quality: f("quality"),
    financial: f("financial"),
    security: f("security"),
    stability: f("stability"),
  };
}

/** Keys in one fixed order: shorter first, then by code unit (decimal ids: numeric order, as objects list integer keys). */
export const idOrder = (x: string, y: string) => x.length - y.length || (x < y ? -1 : x > y ? 1 : 0);

/** The keys of a record in idOrder (sorted only when they are not already). */
export function orderedKeys(record: Record<string, unknown>): string[] {
  const ids = Object.keys(record);
  for (let i = 1; i < ids.length; i++) {
    if (idOrder(ids[i - 1], ids[i]) > 0) {
      ids.sort(idOrder);
      break;
    }
  }
  return ids;
}

export function requireTime(name: string, t: number): void {
  if (!Number.isFinite(t)) throw new RangeError(`invalid ${name}: ${t}`);
}
