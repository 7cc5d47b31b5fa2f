import type { Context } from "hono";
import { refusalError } from "../domain/errors";
import type { Result } from "../domain/results";
import { purgeBadge } from "./badge-cache";
import type { AppEnv } from "./context";
import { publicOrigin } from "../env";
import { a2aExtensionCacheKey, attestationCacheKey } from "./attestation";
import { dropAnswer } from "./edge-cache";
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

/**
 * Drops what this data centre keeps of the agent's public face: its badges and page, and, since a
 * suspension refuses them, its attestation and A2A extension (other data centres' copies expire
 * within their max-age: a minute, five for badges).
 */
export function purgeFace(c: Context<AppEnv>, sid: string): void {
  const origin = publicOrigin(c.env);
  c.executionCtx.waitUntil(
    Promise.all([purgeBadge(sid), purgePage(origin, sid), dropAnswer(attestationCacheKey(origin, sid)), dropAnswer(a2aExtensionCacheKey(origin, sid))]),
  );
}
