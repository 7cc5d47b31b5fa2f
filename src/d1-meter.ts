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

const counts = new Map<string, D1Counts>();

export const meterReading = (): Record<string, D1Counts> => Object.fromEntries(counts);
export const resetMeter = () => counts.clear();

function count(name: string, batches: number, results: unknown[]) {
  const c = counts.get(name) ?? { batches: 0, statements: 0, rowsRead: 0, rowsWritten: 0, sizeAfter: null };
  c.batches += batches;
  c.statements += results.length;
  for (const r of results) {
    const meta = (r as { meta?: { rows_read?: number; rows_written?: number; size_after?: number } } | null)?.meta;
    c.rowsRead += meta?.rows_read ?? 0;
    c.rowsWritten += meta?.rows_written ?? 0;
    if (typeof meta?.size_after === "number") c.sizeAfter = meta.size_after;
  }
  counts.set(name, c);
}

type Prepared = Pick<D1Database, "prepare" | "batch">;
const RAW = Symbol("raw statement");

function meteredStatement(name: string, statement: D1PreparedStatement): D1PreparedStatement {
  return new Proxy(statement, {
    get(target, prop) {
      if (prop === RAW) return target;
      if (prop === "bind") return (...values: unknown[]) => meteredStatement(name, target.bind(...values));
      if (prop === "first" || prop === "run" || prop === "all" || prop === "raw") {
        return async (...args: unknown[]) => {
          // first() and raw() hide the meta: the statement is counted, its rows are not.
          const result = await (target[prop] as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          count(name, 0, [prop === "run" || prop === "all" ? result : null]);
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
      if (prop === "prepare") return (sql: string) => meteredStatement(name, target.prepare(sql));
      if (prop === "batch") {
        return async (statements: D1PreparedStatement[]) => {
          // Unwrap: D1 accepts only its own statements in a batch.
          const results = await target.batch(statements.map((s) => (s as { [RAW]?: D1PreparedStatement })[RAW] ?? s));
          count(name, 1, results);
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
      if (prop === "sendBatch") return (messages: MessageSendRequest[], options?: QueueSendBatchOptions) => (count(name, 1, messages.map(() => null)), target.sendBatch(messages, options));
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
      if (prop === "get") return (id: DurableObjectId) => stub(target.get(id));
      if (prop === "getByName") return (n: string) => stub(target.getByName(n));
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

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
    else if (name === "AGENT" || name === "RATE_LIMITER" || name === "LOG_SEQUENCER") wrapped[name] = meteredNamespace(`${scope}do:${name}`, value as DurableObjectNamespace);
  }
  return wrapped as E;
}
