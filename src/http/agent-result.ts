import type { Context } from "hono";
import { refusalError } from "../domain/errors";
import type { Result } from "../domain/results";
import { purgeBadge } from "./badge-cache";
import type { AppEnv } from "./context";

/**
 * What an agent's object answered, settled for the response: a refusal becomes its error; a result
 * notes its D1 bookmark and, when the change moved what badges show, drops the agent's cached badges.
 */
export function settle<T>(c: Context<AppEnv>, sid: string, out: Result<T>): T {
  if (!out.ok) throw refusalError(out.refusal);
  c.get("sessions").note(out.bookmarks);
  if (out.faceChanged) c.executionCtx.waitUntil(purgeBadge(sid));
  return out.result;
}
