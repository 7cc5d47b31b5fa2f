// A progress line for long admin work (the credibility run, the archive, backfills, sweeps): how far,
// of what total, and the time left at the rate so far. One line per update, at most one every
// `everyMs` (the last always), so a log of a long run stays readable in a terminal and in CI alike.
//
//   const bar = progress("archive", { unit: "agents", total: 4200 });
//   bar.update(1500);        // archive: 1,500 of 4,200 agents (36%), 2 min 10 s so far, about 3 min 54 s left
//   bar.done("1,204 entries moved");

export interface ProgressOptions {
  /** What is counted, plural ("agents", "rows"). */
  unit: string;
  /** How many there are in all; null while unknown. `update` may revise it. */
  total?: number | null;
  /** Print no more often than this (ms), except the first and the last line; default 2,000. */
  everyMs?: number;
  now?: () => number;
  print?: (line: string) => void;
}

export interface Progress {
  /** `done` of them now (and a revised total, when one is given). */
  update(done: number, total?: number | null): void;
  /** The last line: what was done, how long it took, and `summary`. */
  done(summary?: string): void;
}

const count = (n: number) => Math.round(n).toLocaleString("en-US");

/** A duration as a person reads it: "45 s", "3 min 12 s", "2 h 05 min". */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")} min`;
}

/** The line for `done` of `total` after `elapsedMs`: the time left assumes the rate so far holds. */
export function progressLine(label: string, unit: string, done: number, total: number | null, elapsedMs: number): string {
  const so = `${formatDuration(elapsedMs)} so far`;
  if (total === null) return `${label}: ${count(done)} ${unit}, ${so}`;
  const share = total === 0 ? 100 : Math.min(100, Math.floor((done / total) * 100));
  const head = `${label}: ${count(done)} of ${count(total)} ${unit} (${share}%), ${so}`;
  if (done <= 0 || done >= total || elapsedMs <= 0) return head;
  return `${head}, about ${formatDuration((elapsedMs / done) * (total - done))} left`;
}

export function progress(label: string, options: ProgressOptions): Progress {
  const now = options.now ?? Date.now;
  const print = options.print ?? ((line: string) => console.log(line));
  const everyMs = options.everyMs ?? 2000;
  const started = now();
  let total = options.total ?? null;
  let last = 0;
  let printedAt: number | null = null;
  return {
    update(done, revised) {
      if (revised !== undefined) total = revised;
      // A total passed by the work is a total that was an estimate.
      if (total !== null && done > total) total = done;
      last = done;
      const at = now();
      if (printedAt !== null && at - printedAt < everyMs && !(total !== null && done >= total)) return;
      printedAt = at;
      print(progressLine(label, options.unit, done, total, at - started));
    },
    done(summary) {
      print(`${label}: done, ${count(last)} ${options.unit} in ${formatDuration(now() - started)}${summary ? `; ${summary}` : ""}`);
    },
  };
}
