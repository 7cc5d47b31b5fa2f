// What a report costs at Cloudflare's list prices (read from Cloudflare's published pricing,
// November 2026; docs/performance.md quotes them with that date), from the counts the benchmark's
// meter measured per report. Every part is shown, so a change that makes a report dearer shows
// where.

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

/**
 * Dollars per million reports, by part, from per-report figures: Worker requests, object calls
 * (and their duration, from the measured wall time per call), D1 rows written and read, the objects'
 * SQLite rows, queue messages, R2 writes; storage is one month of the bytes a million reports add.
 */
export function costPerMillion(perReport) {
  const M = 1e6;
  const gbSecondsPerCall = 0.128 * ((perReport.objectCallMs ?? 10) / 1000);
  const parts = {
    workers: perReport.workerRequests * PRICES.workersRequest * M,
    objectCalls: perReport.objectCalls * PRICES.doRequest * M,
    objectDuration: perReport.objectCalls * gbSecondsPerCall * PRICES.doGbSecond * M,
    d1RowsWritten: perReport.d1RowsWritten * PRICES.d1RowWritten * M,
    d1RowsRead: perReport.d1RowsRead * PRICES.d1RowRead * M,
    objectRowsWritten: perReport.objectRowsWritten * PRICES.doRowWritten * M,
    queues: perReport.queueMessages * PRICES.queueOperationsPerMessage * PRICES.queueOperation * M,
    r2Writes: (perReport.r2Writes ?? 0) * PRICES.r2ClassA * M,
    d1StorageMonth: ((perReport.d1Bytes ?? 0) * M) / 1e9 * PRICES.d1StorageGbMonth,
  };
  const round = (x) => Math.round(x * 1000) / 1000;
  const rounded = Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, round(v)]));
  return { parts: rounded, total: round(Object.values(parts).reduce((a, b) => a + b, 0)) };
}

/** One line per part, for the printed table. */
export function costLines(label, cost) {
  const parts = Object.entries(cost.parts)
    .filter(([, v]) => v > 0)
    .map(([k, v]) => `${k} $${v.toFixed(3)}`)
    .join(", ");
  return `  ${label}: $${cost.total.toFixed(2)} per million reports (${parts})`;
}
