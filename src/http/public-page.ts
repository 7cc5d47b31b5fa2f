import { publicOrigin } from "../env";
import type { Context } from "hono";
import { SCORE_HISTORY_LIMIT } from "../db/agents";
import { ApiError } from "../domain/errors";
import { toAgentScore, type AgentReport, type AgentScore } from "../domain/views";
import { agentReport, operatorFacts, readAgent } from "./agents";
import { attest } from "./attestation";
import { signingKeys } from "./signing-keys";
import type { AppEnv } from "./context";
import { dropAnswer } from "./edge-cache";
import { publicFace, publicProfile, type AgentPageView, type AttestationState } from "./wire/page/view";

// The agent's public page (GET /agents/{sid} for a browser): what it shows, read from the agent's
// shard, and its place in the edge cache (src/http/edge-cache.ts).

export const PAGE_MAX_AGE_S = 60;

/** The representations GET /agents/{sid} answers: the page, and the public score in either form. */
export const REPRESENTATIONS = ["html", "json-a", "json-b"] as const;
export type Representation = (typeof REPRESENTATIONS)[number];

/** Each representation of an agent's path is cached apart: the key names it. */
export const pageKey = (origin: string, sid: string, representation: Representation) =>
  `https://page.cache/${encodeURIComponent(origin)}/${encodeURIComponent(sid)}/${representation}`;

/** Drops every representation cached in this data centre (others expire within a minute). */
export const purgePage = (origin: string, sid: string) => Promise.all(REPRESENTATIONS.map((r) => dropAnswer(pageKey(origin, sid, r))));

/** What the page shows: the public face, an attestation of it, and the profile when the owner opted in. */
export async function agentPageView(c: Context<AppEnv>, sid: string): Promise<AgentPageView> {
  const now = c.get("deps").now();
  const { row } = await readAgent(c, sid);
  // Opted in: the report (read once more, with its history) is the one source of every figure shown.
  let agent: AgentScore | AgentReport;
  if (row.publicProfile) agent = await agentReport(c, sid);
  else agent = toAgentScore(row, row.operatorId === null ? null : await operatorFacts(c, row.operatorId), now);
  return {
    origin: publicOrigin(c.env),
    face: publicFace(agent),
    attestation: await attestationOf(c, agent),
    profile: "scoreHistory" in agent ? publicProfile(agent, SCORE_HISTORY_LIMIT) : null,
    asOf: new Date(now).toISOString(),
  };
}

/** The agent's attestation, or why there is none: a page still shows the rest. */
async function attestationOf(c: Context<AppEnv>, agent: AgentScore): Promise<AttestationState> {
  if (agent.status === "suspended") return { missing: "suspended" };
  try {
    return { jws: await attest(c, agent, await signingKeys(c)) };
  } catch (err) {
    if (err instanceof ApiError && err.code === "unavailable") return { missing: "not_configured" };
    throw err;
  }
}
