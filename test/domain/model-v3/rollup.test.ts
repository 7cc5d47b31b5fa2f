// The daily rollups' pure part: the track a reporter keeps on an agent, the rows it writes, the
// same rows folded from a history at once, and the tuple a staged page keeps.
import { describe, expect, it } from "vitest";
import { computeStanding, DAY_MS, HOUR_MS, leanRollups, packRollup, rollupsOf, trackReport, unpackRollup, type RollupTrack, type StandingSnapshot, type TrackedReport } from "../../../src/domain/model";
import { ANCHORS, sizeFor, worldRows } from "../../../bench/credibility-world";

const T0 = Date.parse("2026-11-27T08:00:00Z");
const report = (reporter: string, at: number, over: Partial<TrackedReport> = {}): TrackedReport => ({
  reporter,
  agent: "SID-0x0000000000000001",
  owner: "9",
  at,
  outcome: "success",
  signals: { quality: 900 },
  receipted: true,
  ...over,
});

describe("rollups", () => {
  it("adds the day's reports into one row, and is established from a second day at least 24 hours after the first report", () => {
    let track: RollupTrack | null = null;
    track = trackReport(track, report("1", T0));
    track = trackReport(track, report("1", T0 + HOUR_MS, { outcome: "failure", receipted: false }));
    expect(track.row).toMatchObject({ day: Math.floor(T0 / DAY_MS), reports: 2, receipted: 1, established: false });
    expect(track.row.net.stability).toBe(0);
    expect(track.row.receiptedNet.stability).toBe(1);
    // The next UTC day, but under 24 hours after the first report: not yet.
    const nextDay = (Math.floor(T0 / DAY_MS) + 1) * DAY_MS + HOUR_MS;
    track = trackReport(track, report("1", nextDay));
    expect(track.row).toMatchObject({ reports: 1, established: false });
    track = trackReport(track, report("1", T0 + DAY_MS));
    expect(track).toMatchObject({ days: 2, firstAt: T0, row: { reports: 2, established: true } });
  });

  it("folds a history into the rows written report by report, from the first day asked for", () => {
    const history = [report("1", T0), report("2", T0 + 1), report("1", T0 + DAY_MS), report("1", T0 + DAY_MS + 5), report("2", T0 + 3 * DAY_MS)];
    const tracks = new Map<string, RollupTrack>();
    const written = new Map<string, unknown>();
    for (const r of history) {
      const t = trackReport(tracks.get(r.reporter) ?? null, r);
      tracks.set(r.reporter, t);
      written.set(`${t.lastDay}/${r.reporter}`, t.row);
    }
    const folded = rollupsOf(history);
    expect(folded.rows).toEqual([...written.values()]);
    expect(folded.tracks).toEqual(tracks);
    const fromDay = Math.floor(T0 / DAY_MS) + 1;
    expect(rollupsOf(history, fromDay).rows.map((r) => [r.reporter, r.day])).toEqual([["1", fromDay], ["2", fromDay + 2]]);
  });

  it("keeps a row whole through its staged tuple", () => {
    const row = trackReport(null, report("7", T0, { signals: { quality: 250, security: 1000 } })).row;
    expect(unpackRollup(JSON.parse(JSON.stringify(packRollup(row))))).toEqual(row);
  });

  it("gives computeStanding the same snapshot from the job's lean rows as from the full ones, run after run", () => {
    const today = Math.floor(Date.parse("2026-11-27T00:00:00Z") / DAY_MS);
    const full = [...worldRows(sizeFor(20_000), today)];
    const lean = leanRollups();
    for (const row of full) lean.add(JSON.parse(JSON.stringify(packRollup(row))));
    expect(lean.rows).toHaveLength(full.length);
    const anchors = Array.from({ length: ANCHORS }, (_, i) => String(i + 1));
    let [a, b]: (StandingSnapshot | null)[] = [null, null];
    for (let run = 0; run < 3; run++) {
      a = computeStanding(full, { day: today + run, previous: a, anchors });
      b = computeStanding(lean.rows, { day: today + run, previous: b, anchors });
      expect(b).toEqual(a);
    }
    // Not a world where nothing happens: standing spread past the anchors and some votes were cast.
    expect(Object.values(a!.reporters).filter((e) => e.standing > 0).length).toBeGreaterThan(ANCHORS);
    expect(Object.values(a!.reporters).some((e) => e.agree + e.disagree > 0)).toBe(true);
  });
});
