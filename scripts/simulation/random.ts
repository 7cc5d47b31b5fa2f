// Seeded randomness and the statistics the simulation reports.

export type Random = () => number;

/** sfc32 seeded from a hash of a key, so every agent has its own stream and one scenario never shifts another's draws. */
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

export function normal(random: Random, sd: number): number {
  const u = 1 - random();
  const v = random();
  return sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

export const uniformInt = (random: Random, min: number, max: number) => min + Math.floor(random() * (max - min + 1));

export function median(values: number[]): number {
  return quantile(values, 0.5);
}

/** The q-quantile by linear interpolation between order statistics (q = 0.5: the median). */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((x, y) => x - y);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  if (lo === hi || s[lo] === s[hi]) return s[lo];
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
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
