import type { Context } from "hono";
import { sequencerName } from "../domain/log/messages";
import type { AppEnv } from "./context";

// A log's origin is fixed when the log is created and kept by its sequencer; it never changes, so
// an isolate asks each log once.
const known = new WeakMap<object, Map<number, Promise<string>>>();

/** Log n's origin, as its sequencer fixed it (creating the log if nothing has yet). */
export function logOriginOf(c: Context<AppEnv>, n: number): Promise<string> {
  let logs = known.get(c.env);
  if (!logs) known.set(c.env, (logs = new Map()));
  let origin = logs.get(n);
  if (!origin) {
    origin = c.env.LOG_SEQUENCER.getByName(sequencerName(n)).origin();
    logs.set(n, origin);
    // A failed call is asked again by the next reader.
    origin.catch(() => logs.delete(n));
  }
  return origin;
}
