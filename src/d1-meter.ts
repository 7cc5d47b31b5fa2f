// An optional meter for the benchmark of what a report costs: every D1 call per database (batches,
// statements, and the rows read and written D1's own result meta reports, and the database's size
// as the last result reported it); the rows the agents' objects write in their own SQLite storage;
// messages sent to each queue; calls to each Durable Object namespace. Off unless the variable
// D1_METER is "true"; then env's bindings are wrapped where the Worker and each object receive env.
// Counts are per isolate (locally, one isolate runs the Worker and its objects).

export interface D1Counts {
  batches: number;
  statements: number;
  rowsRead: number;
  rowsWritten: number;
  /** Bytes, from the latest result's meta.size_after (null until a result carried it). */
  sizeAfter: number | null;
}

/**
 * The writes of one table in one database: statements that wrote it, the batches (or lone
 * statements) they came in, D1's rows_written (the row and its index rows) and its changes (the
 * rows themselves). A table's batches count the commits that wrote it: the bench reads reports per
 * commit from the agents table's.
 */
export interface TableCounts {
  batches: number;
  statements: number;
  rowsWritten: number;
  changes: number;
}

const counts = new Map<string, D1Counts>();
const tables = new Map<string, Map<string, TableCounts>>();

export const meterReading = (): Record<string, D1Counts> => Object.fromEntries(counts);
export const tableReading = (): Record<string, Record<string, TableCounts>> =>
  Object.fromEntries([...tables].map(([name, byTable]) => [name, Object.fromEntries(byTable)]));
export const resetMeter = () => {
  counts.clear();
  tables.clear();
};

interface Meta {
  rows_read?: number;
  rows_written?: number;
  changes?: number;
  size_after?: number;
}

function count(name: string, batches: number, results: unknown[]) {
  const c = counts.get(name) ?? { batches: 0, statements: 0, rowsRead: 0, rowsWritten: 0, sizeAfter: null };
  c.batches += batches;
  c.statements += results.length;
  for (const r of results) {
    const meta = (r as { meta?: Meta } | null)?.meta;
    c.rowsRead += meta?.rows_read ?? 0;
    c.rowsWritten += meta?.rows_written ?? 0;
    if (typeof meta?.size_after === "number") c.sizeAfter = meta.size_after;
  }
  counts.set(name, c);
}

// The table a statement writes: the first INSERT/REPLACE INTO, UPDATE or DELETE FROM in its text
// (after any WITH clause), quoted or not. Reads and statements it cannot tell are not counted here.
const WRITE = /\b(?:insert(?:\s+or\s+\w+)?\s+into|replace\s+into|update(?:\s+or\s+\w+)?|delete\s+from)\s+["`[]?(\w+)/i;
export const writtenTable = (sql: string): string | null => WRITE.exec(sql)?.[1]?.toLowerCase() ?? null;

/**
 * Adds a call's written tables: `statements` pairs each statement's SQL with its result. A table's
 * batch counts only when the call wrote rows of it (an insert that found its row already there, or
 * an update that matched none, did not commit anything to it).
 */
function countTables(name: string, statements: { sql: string | undefined; result: unknown }[]) {
  const call = new Map<string, TableCounts>();
  for (const { sql, result } of statements) {
    const table = sql === undefined ? null : writtenTable(sql);
    if (table === null) continue;
    const meta = (result as { meta?: Meta } | null)?.meta;
    const t = call.get(table) ?? { batches: 0, statements: 0, rowsWritten: 0, changes: 0 };
    t.statements += 1;
    t.rowsWritten += meta?.rows_written ?? 0;
    t.changes += meta?.changes ?? 0;
    call.set(table, t);
  }
  if (call.size === 0) return;
  const byTable = tables.get(name) ?? new Map<string, TableCounts>();
  for (const [table, c] of call) {
    const t = byTable.get(table) ?? { batches: 0, statements: 0, rowsWritten: 0, changes: 0 };
    t.batches += c.rowsWritten > 0 || c.changes > 0 ? 1 : 0;
    t.statements += c.statements;
    t.rowsWritten += c.rowsWritten;
    t.changes += c.changes;
    byTable.set(table, t);
  }
  tables.set(name, byTable);
}

type Prepared = Pick<D1Database, "prepare" | "batch">;
const RAW = Symbol("raw statement");
const SQL = Symbol("statement text");

function meteredStatement(name: string, statement: D1PreparedStatement, sql: string): D1PreparedStatement {
  return new Proxy(statement, {
    get(target, prop) {
      if (prop === RAW) return target;
      if (prop === SQL) return sql;
      if (prop === "bind") return (...values: unknown[]) => meteredStatement(name, target.bind(...values), sql);
      if (prop === "first" || prop === "run" || prop === "all" || prop === "raw") {
        return async (...args: unknown[]) => {
          // first() and raw() hide the meta: the statement is counted, its rows are not.
          const result = await (target[prop] as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          const seen = prop === "run" || prop === "all" ? result : null;
          count(name, 0, [seen]);
          countTables(name, [{ sql, result: seen }]);
          return result;
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

function metered<T extends Prepared>(name: string, database: T): T {
  return new Proxy(database, {
    get(target, prop) {
      if (prop === "prepare") return (sql: string) => meteredStatement(name, target.prepare(sql), sql);
      if (prop === "batch") {
        return async (statements: D1PreparedStatement[]) => {
          // Unwrap: D1 accepts only its own statements in a batch.
          const results = await target.batch(statements.map((s) => (s as { [RAW]?: D1PreparedStatement })[RAW] ?? s));
          count(name, 1, results);
          countTables(
            name,
            statements.map((s, i) => ({ sql: (s as { [SQL]?: string })[SQL], result: results[i] })),
          );
          return results;
        };
      }
      if (prop === "withSession") return (constraint?: string) => metered(name, (target as unknown as D1Database).withSession(constraint));
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** A queue whose sends are counted as messages (a batch's messages each count). */
function meteredQueue(name: string, queue: Queue) {
  return new Proxy(queue, {
    get(target, prop) {
      if (prop === "send") return (body: unknown, options?: QueueSendOptions) => (count(name, 1, [null]), target.send(body, options));
      if (prop === "sendBatch")
        return (messages: MessageSendRequest[], options?: QueueSendBatchOptions) => (
          count(
            name,
            1,
            messages.map(() => null),
          ),
          target.sendBatch(messages, options)
        );
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** A Durable Object namespace whose objects' RPC calls are counted (as statements of `name`). */
function meteredNamespace(name: string, namespace: DurableObjectNamespace) {
  const stub = (s: DurableObjectStub) =>
    new Proxy(s, {
      get(target, prop) {
        const value: unknown = Reflect.get(target, prop, target);
        if (typeof value !== "function" || typeof prop !== "string") return value;
        // An RPC method answers every property (apply, bind...) as a remote method: call it as it is.
        return (...args: unknown[]) => (count(name, 0, [null]), Reflect.apply(value, target, args));
      },
    });
  return new Proxy(namespace, {
    get(target, prop) {
      if (prop === RAW) return target;
      if (prop === "get") return (id: DurableObjectId) => stub(target.get(id));
      if (prop === "getByName") return (n: string) => stub(target.getByName(n));
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** A namespace as it was before metering: calls the meter must not count (the meter's own readings). */
export const unmetered = <T extends object>(namespace: T): T => (namespace as unknown as { [RAW]?: T })[RAW] ?? namespace;

/** An object's alarm, counted as a call of its namespace's alarms (`name`): billed like a request. */
export function meterAlarm(env: object, name: string): void {
  if ((env as { D1_METER?: string }).D1_METER === "true") count(name, 0, [null]);
}

/**
 * An object's SQLite storage with its rows written counted under `name` (when metering is on):
 * what the platform bills an object's storage by, like D1's rows.
 */
export function meteredSql(env: object, name: string, sql: SqlStorage): SqlStorage {
  if ((env as { D1_METER?: string }).D1_METER !== "true") return sql;
  return new Proxy(sql, {
    get(target, prop) {
      if (prop === "exec") {
        return (query: string, ...bindings: unknown[]) => {
          const cursor = target.exec(query, ...bindings);
          const c = counts.get(name) ?? { batches: 0, statements: 0, rowsRead: 0, rowsWritten: 0, sizeAfter: null };
          c.statements += 1;
          c.rowsWritten += cursor.rowsWritten;
          c.sizeAfter = target.databaseSize;
          counts.set(name, c);
          countTables(name, [{ sql: query, result: { meta: { rows_written: cursor.rowsWritten } } }]);
          return cursor;
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * env with its bindings metered when D1_METER is "true"; env itself otherwise. `scope` prefixes
 * the names the counts go under (the queue consumers count as "queue:DB", apart from requests).
 */
export function metering<E extends object>(env: E, scope = ""): E {
  if ((env as { D1_METER?: string }).D1_METER !== "true") return env;
  const wrapped: Record<string, unknown> = { ...(env as Record<string, unknown>) };
  for (const [name, value] of Object.entries(env)) {
    if (name === "DB" || /^SHARD_\d+$/.test(name)) wrapped[name] = metered(scope + name, value as D1Database);
    else if (name === "EVENTS" || name === "LOG_QUEUE" || name === "DELIVERIES") wrapped[name] = meteredQueue(`${scope}queue:${name}`, value as Queue);
    else if (name === "AGENT" || name === "RATE_LIMITER" || name === "LOG_SEQUENCER" || name === "STATUS_LIST")
      wrapped[name] = meteredNamespace(`${scope}do:${name}`, value as DurableObjectNamespace);
  }
  return wrapped as E;
}
