// The ring and competitor rows injected into Bitcoin OTC (the `kept` network): the same replay as
// `npm run evaluate`, with attackers' ratings added. Each injection is compared with the network
// without it, seen through every face the victims show afterwards (just before each rating they
// receive, and at the end).

import type { Rating } from "../evaluation/parse";
import { replayNetwork, type Face } from "../evaluation/replay";
import { cell, pct, type Row } from "./table";

const DAY_S = 86_400;
export const AGED_PRICE = "3 receipted dealings with trusted owners + 30 days";

interface Timeline {
  /** Per user, its faces in time order: [time, face] before each rating it received, then the end. */
  faces: Map<number, [number, Face][]>;
}

function timeline(ratings: readonly Rating[], users: Iterable<number>): Timeline {
  const r = replayNetwork(ratings, { anchor: 1, users });
  const faces = new Map<number, [number, Face][]>();
  const ordered = [...ratings].sort((a, b) => a.time - b.time || a.line - b.line);
  for (const x of ordered) {
    const list = faces.get(x.target) ?? [];
    list.push([x.time, r.before.get(x.line)!]);
    faces.set(x.target, list);
  }
  const end = ordered.length ? ordered[ordered.length - 1].time + 1 : 0;
  for (const u of r.users) {
    const list = faces.get(u.id) ?? [];
    list.push([end, u.face]);
    faces.set(u.id, list);
  }
  return { faces };
}

/** The first time a user shows `rec` (the rating whose face shows it), or null. */
const firstShowing = (t: Timeline, user: number, rec: string) => t.faces.get(user)?.find(([, f]) => f.recommendation === rec)?.[0] ?? null;
const everAfter = (t: Timeline, user: number, from: number, rec: string) => (t.faces.get(user) ?? []).some(([time, f]) => time > from && f.recommendation === rec);

export function otcRows(ratings: readonly Rating[], labels: ReadonlyMap<number, 1 | -1>, ks: readonly number[]): { rows: Row[]; notes: string[] } {
  const users = new Set<number>([...ratings.flatMap((r) => [r.source, r.target]), ...labels.keys()]);
  let nextId = Math.max(...users) + 1;
  let nextLine = Math.max(...ratings.map((r) => r.line)) + 1;
  const rate = (source: number, target: number, rating: number, time: number): Rating => ({ line: nextLine++, source, target, rating, time });
  const base = timeline(ratings, users);
  const fraud = [...labels].filter(([, l]) => l === -1).map(([u]) => u).sort((a, b) => a - b);
  const benign = [...labels].filter(([, l]) => l === 1).map(([u]) => u).sort((a, b) => a - b);
  const start = ratings.length ? Math.min(...ratings.map((r) => r.time)) : 0;
  const middle = ratings.length ? (start + Math.max(...ratings.map((r) => r.time))) / 2 : 0;

  // Rings: for each k, k new accounts praise a labelled fraudster just after its first caution, and k
  // more praise a new user of their own (and each other), all at +10.
  const injected: Rating[] = [];
  const rings: { k: number; fraudster: number; at: number; target: number; members: number[] }[] = [];
  const cautioned = fraud.filter((u) => firstShowing(base, u, "caution") !== null);
  ks.forEach((k, i) => {
    const fraudster = cautioned[i % Math.max(1, cautioned.length)];
    const at = (fraudster === undefined ? middle : firstShowing(base, fraudster, "caution")!) - 0.5;
    const members = Array.from({ length: k }, () => nextId++);
    if (fraudster !== undefined) members.forEach((m, j) => injected.push(rate(m, fraudster, 10, at + j * 0.01)));
    const target = nextId++;
    const own = Array.from({ length: k }, () => nextId++);
    own.forEach((m, j) => {
      injected.push(rate(m, target, 10, middle + j));
      own.forEach((o) => o !== m && injected.push(rate(m, o, 10, middle + j)));
    });
    rings.push({ k, fraudster, at, target, members });
  });
  // New competitors: one new account per benign user slanders it (−10) just after its first clear.
  const newVictims: { user: number; at: number }[] = [];
  for (const u of benign) {
    const clearAt = firstShowing(base, u, "clear");
    if (clearAt === null) continue;
    newVictims.push({ user: u, at: clearAt - 0.5 });
    injected.push(rate(nextId++, u, -10, clearAt - 0.5));
  }
  const attacked = timeline([...ratings, ...injected], [...users, ...injected.flatMap((r) => [r.source, r.target])]);

  // Aged competitors: one account per benign user with 3 receipted +10 ratings of trusted users (the
  // anchor's three most rated contacts) 40 days before it slanders the user (−10) just after its first clear.
  const popular = [...new Set(ratings.filter((r) => r.source === 1 && r.rating >= 5).map((r) => r.target))]
    .map((u) => [u, ratings.filter((r) => r.target === u).length] as const)
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, 3)
    .map(([u]) => u);
  const aged: Rating[] = [];
  for (const { user, at } of newVictims) {
    const id = nextId++;
    popular.forEach((p, j) => aged.push(rate(id, p, 10, at - 40 * DAY_S + j)));
    aged.push(rate(id, user, -10, at));
  }
  const agedRun = timeline([...ratings, ...aged], [...users, ...aged.map((r) => r.source)]);

  const rows: Row[] = [];
  let clear = 0;
  let lifted = 0;
  let cautionedRuns = 0;
  const parts: string[] = [];
  /** Some face of the user after `from` (at a time the network alone shows a face too) shows `rec` where the network alone shows otherwise. */
  const madeAfter = (user: number, from: number, rec: string, pred: (alone: string) => boolean) => {
    const alone = new Map((base.faces.get(user) ?? []).map(([t, f]) => [t, f.recommendation]));
    return (attacked.faces.get(user) ?? []).some(([t, f]) => t > from && alone.has(t) && f.recommendation === rec && pred(alone.get(t)!));
  };
  for (const r of rings) {
    const fraudClear = r.fraudster !== undefined && madeAfter(r.fraudster, r.at, "clear", (alone) => alone !== "clear");
    const ownClear = everAfter(attacked, r.target, 0, "clear");
    if (fraudClear || ownClear) {
      clear++;
      parts.push(`k=${r.k}: clear`);
    }
    if (r.fraudster === undefined) continue;
    cautionedRuns++;
    // The caution is lifted if some face after the ring is not caution where the network alone shows caution then.
    if ((attacked.faces.get(r.fraudster) ?? []).some(([t, f]) => t > r.at && f.recommendation !== "caution" && new Map(base.faces.get(r.fraudster)!.map(([u, g]) => [u, g.recommendation])).get(t) === "caution")) lifted++;
  }
  rows.push({
    key: "ring",
    attack: `ring of k = ${ks.join(", ")} new accounts praising a labelled fraudster from its first caution (one fraudster per k), and k more praising a new user of their own and each other`,
    target: "never clear (where the network alone is not); never lifts a caution",
    price: "k accounts, no receipted dealings with trusted owners",
    cell: cell(`clear in ${clear} of ${rings.length * 2} runs${parts.length ? ` (${parts.join(", ")})` : ""}; caution lifted in ${lifted} of ${cautionedRuns}`, clear === 0 && lifted === 0 && cautionedRuns > 0, {
      clear,
      lifted,
      runs: cautionedRuns,
    }),
  });
  const competitorCell = (t: Timeline, bound: number) => {
    let caution = 0;
    let caused = 0;
    for (const { user, at } of newVictims) {
      const attacked = everAfter(t, user, at, "caution");
      if (attacked) caution++;
      if (attacked && !everAfter(base, user, at, "caution")) caused++;
    }
    return cell(`${pct(caused, newVictims.length)} of ${newVictims.length} put in caution (ever caution after it ${pct(caution, newVictims.length)})`, newVictims.length > 0 && caused <= bound * newVictims.length, {
      n: newVictims.length,
      caused,
      caution,
    });
  };
  rows.push({
    key: "competitor-new",
    attack: "one new-account competitor slanders (−10) a benign user just after its first clear, beside its honest traffic: users it puts in caution",
    target: "ever caution ≤ 3%",
    price: "1 account",
    cell: competitorCell(attacked, 0.03),
  });
  rows.push({
    key: "competitor-aged",
    attack: "one aged competitor (3 receipted +10 ratings of trusted users 40 days before) slanders a benign user just after its first clear: users it puts in caution",
    target: "ever caution ≤ 10%",
    price: `1 account × (${AGED_PRICE})`,
    cell: competitorCell(agedRun, 0.1),
  });
  return { rows, notes: [`OTC: ${cautioned.length} labelled fraudsters ever in caution, ${newVictims.length} benign users ever clear in the network alone; trusted users praised by the aged competitors: ${popular.join(", ")}`] };
}
