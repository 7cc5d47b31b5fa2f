import type { Context } from "hono";
import { refusalError } from "../domain/errors";
import type { Result } from "../domain/results";
import { purgeBadge } from "./badge-cache";
import type { AppEnv } from "./context";
import { publicOrigin } from "../env";
import { purgePage } from "./public-page";

/**
 * What an agent's object answered, settled for the response: a refusal becomes its error; a result
 * notes its D1 bookmark and, when the change moved what badges show, drops the agent's cached badges
 * and its public page (the copy of the origin the change came through).
 */
export function settle<T>(c: Context<AppEnv>, sid: string, out: Result<T>): T {
  if (!out.ok) throw refusalError(out.refusal);
  c.get("sessions").note(out.bookmarks);
  if (out.faceChanged) purgeFace(c, sid);
  return out.result;
}

/** Drops the agent's cached badges and public page in this data centre (others expire within minutes). */
export function purgeFace(c: Context<AppEnv>, sid: string): void {
  c.executionCtx.waitUntil(Promise.all([purgeBadge(sid), purgePage(publicOrigin(c.env), sid)]));
}
