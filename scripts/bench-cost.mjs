// What a report costs at Cloudflare's list prices (read from Cloudflare's published pricing,
// November 2026; docs/performance.md quotes them with that date), from the counts the benchmark's
// meter measured per report, and the least the design's write path can cost (its floor), from the
// same measurement's reports per commit and bytes. Every part is shown, so a change that makes a
// report dearer shows where.

export const PRICES = {
  date: "2026-11",
  workersRequest: 0.3 / 1e6,
  doRequest: 0.15 / 1e6,
  /** Durable Object duration, per GB-second (128 MB per object while it runs). */
  doGbSecond: 12.5 / 1e6,
  d1RowWritten: 1.0 / 1e6,
  d1RowRead: 0.001 / 1e6,
  d1StorageGbMonth: 0.75,
  doRowWritten: 1.0 / 1e6,
  doStorageGbMonth: 0.2,
  /** Per operation (per 64 KB); a delivered message is about 3: write, read, delete. */
  queueOperation: 0.4 / 1e6,
  queueOperationsPerMessage: 3,
  r2ClassA: 4.5 / 1e6,
  r2StorageGbMonth: 0.015,
};

/** Object duration is not measured locally: each call is priced at this many milliseconds. */
export const OBJECT_CALL_MS = 10;

/**
 * Dollars per million reports, by part, from per-report figures: Worker requests, object calls
 * (the agents' alarms and the rate limiter's calls among them) and their duration, D1 rows written
 * and read, the objects' SQLite rows, queue messages (3 operations each), R2 writes; storage is one
 * month of the bytes a million reports add, on D1 and in the objects' SQLite.
 */
export function costPerMillion(perReport) {
  const M = 1e6;
  const gbSecondsPerCall = 0.128 * ((perReport.objectCallMs ?? OBJECT_CALL_MS) / 1000);
  const parts = {
    workers: perReport.workerRequests * PRICES.workersRequest * M,
    objectCalls: perReport.objectCalls * PRICES.doRequest * M,
    objectDuration: perReport.objectCalls * gbSecondsPerCall * PRICES.doGbSecond * M,
    d1RowsWritten: perReport.d1RowsWritten * PRICES.d1RowWritten * M,
    d1RowsRead: (perReport.d1RowsRead ?? 0) * PRICES.d1RowRead * M,
    objectRowsWritten: (perReport.objectRowsWritten ?? 0) * PRICES.doRowWritten * M,
    queues: perReport.queueMessages * PRICES.queueOperationsPerMessage * PRICES.queueOperation * M,
    r2Writes: (perReport.r2Writes ?? 0) * PRICES.r2ClassA * M,
    d1StorageMonth: (Math.max(0, perReport.d1Bytes ?? 0) * M) / 1e9 * PRICES.d1StorageGbMonth,
    objectStorageMonth: (Math.max(0, perReport.objectBytes ?? 0) * M) / 1e9 * PRICES.doStorageGbMonth,
  };
  const round = (x) => Math.round(x * 1000) / 1000;
  const rounded = Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, round(v)]));
  return { parts: rounded, total: round(Object.values(parts).reduce((a, b) => a + b, 0)) };
}

/**
 * The design's floor for a report (docs/performance.md, "The floor"): the Worker request (shared
 * by a batch's reports), one call of the agent's object per agent and request, the history entry
 * and its index rows, the pair row and the agent row once per commit (shared by the reports of a
 * group commit or of one agent's part of a batch), one message to the log queue per commit, and a
 * month of the bytes the shard keeps; nothing in the object's own storage. From measured inputs:
 *   workerRequests, objectCalls  per report, from the workload (requests and agents per request);
 *   entryRows                    D1 rows per history entry (the row and its index rows), measured;
 *   reportsPerCommit             reports over the commits that wrote the agent row, measured;
 *   pairsPerCommit               (agent, reporter) pairs a commit changes (the bench has one reporter);
 *   d1Bytes                      shard bytes per report, measured.
 */
export function floorPerReport({ workerRequests, objectCalls, entryRows, reportsPerCommit, pairsPerCommit = 1, d1Bytes }) {
  const perCommit = 1 / reportsPerCommit;
  const figures = {
    workerRequests,
    objectCalls,
    d1RowsWritten: entryRows + (pairsPerCommit + 1) * perCommit,
    d1RowsRead: 0,
    objectRowsWritten: 0,
    queueMessages: perCommit,
    d1Bytes,
    objectBytes: 0,
  };
  return { ...figures, cost: costPerMillion(figures) };
}

/**
 * A read's floor: its Worker request and the agent row read from D1 (a cached read costs only the
 * request; this is the uncached one).
 */
export function readFloor() {
  const figures = { workerRequests: 1, objectCalls: 0, d1RowsWritten: 0, d1RowsRead: 1, queueMessages: 0 };
  return { ...figures, cost: costPerMillion(figures) };
}

/**
 * The transparency log's cost per million leaves: the trust-log queue messages that carry the leaves
 * (the reports' table counts them too, in its queue operations; the targets "without the log" do
 * not), the sequencer's calls, the rows it writes and its R2 writes, per leaf as measured; R2 storage
 * is shown by `npm run bench -- --only log`.
 */
export function logCostPerMillionLeaves({ sequencerCallsPerLeaf, rowsPerLeaf, r2WritesPerLeaf, logQueueMessagesPerLeaf = 0 }) {
  const M = 1e6;
  const parts = {
    queueMessages: logQueueMessagesPerLeaf * PRICES.queueOperationsPerMessage * PRICES.queueOperation * M,
    sequencerCalls: sequencerCallsPerLeaf * (PRICES.doRequest + 0.128 * (OBJECT_CALL_MS / 1000) * PRICES.doGbSecond) * M,
    sequencerRows: rowsPerLeaf * PRICES.doRowWritten * M,
    r2Writes: r2WritesPerLeaf * PRICES.r2ClassA * M,
  };
  const round = (x) => Math.round(x * 1000) / 1000;
  return { parts: Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, round(v)])), total: round(Object.values(parts).reduce((a, b) => a + b, 0)) };
}

/** One line per part, for the printed table. */
export function costLines(label, cost) {
  const parts = Object.entries(cost.parts)
    .filter(([, v]) => v > 0)
    .map(([k, v]) => `${k} $${v.toFixed(3)}`)
    .join(", ");
  return `  ${label}: $${cost.total.toFixed(2)} per million (${parts})`;
}
