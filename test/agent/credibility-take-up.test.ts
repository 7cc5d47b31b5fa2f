// The credibility take-up of scoring model version 4 in the agent's object: a snapshot that moves no
// value of the agent's reporters writes no entry, and is checked once per object life rather than at
// every change (each check walks every pair of the agent); a reporter new to the agent still gets
// its value under that snapshot.

import { env } from "cloudflare:workers";
import { afterEach, expect, it } from "vitest";
import { readRecord, type Loaded } from "../../src/db/agent-record";
import { findAgent } from "../../src/db/directory";
import { readAllPairs, type PairRow } from "../../src/db/pairs";
import { forgetSnapshot } from "../../src/db/snapshot";
import { reporterCommitment } from "../../src/domain/entries";
import { credibilityStep } from "../../src/durable/agent/credibility";
import type { AgentHost, GroupView } from "../../src/durable/agent/host";
import { agentConfig, bearer, createOperator, publishCredibility, shardOf, testApp, T_CALL } from "../helpers";

afterEach(() => forgetSnapshot());

/** A host as one object life of the agent gives it: only what the take-up reads. */
const lifeOf = () => ({ env, commitment: (sid: string, op: number) => reporterCommitment(env.REPORTER_KEY!, sid, op) }) as unknown as AgentHost;

/** The group's view of the agent, counting how often every pair was read. */
function viewOf(loaded: Loaded, rows: Map<string, PairRow>) {
  const counted = { walks: 0 };
  const view: GroupView = {
    before: loaded,
    record: loaded.record,
    answered: async () => null,
    spent: async () => false,
    pairs: async (keys) => new Map(keys.flatMap((k) => (rows.has(k) ? [[k, rows.get(k)!] as const] : []))),
    allPairs: async () => {
      counted.walks++;
      return rows;
    },
  };
  return { view, counted };
}

it("a snapshot that moves no reporter's value is walked once per object life, and a new reporter still gets its value under it", async () => {
  const app = testApp({ now: T_CALL });
  const [owner, a, b] = [await createOperator(), await createOperator(), await createOperator()];
  const registered = await app.request("/register", { headers: bearer(owner.key), body: { name: "Agent", ...agentConfig } });
  const { sid } = (await registered.json()) as { sid: string };
  await publishCredibility({ [a.id]: 0.5 }, T_CALL);
  app.clock.now += 60_000;
  expect((await app.request("/transactions", { headers: bearer(a.key), body: { sid, transactionType: "t", outcome: "success" } })).status).toBe(201);

  // The next day's snapshot gives a the same value (and names b, who has not reported).
  const next = await publishCredibility({ [a.id]: 0.5, [b.id]: 0.25 }, T_CALL + 120_000);
  const d1 = (await shardOf(sid)).withSession("first-primary");
  const { num, shard, log } = (await findAgent(env.DB, sid))!;
  const loaded = (await readRecord(d1, { sid, num, shard, log }))!;
  expect(loaded.record.evidence.snapshot).not.toBe(next);
  const { view, counted } = viewOf(loaded, await readAllPairs(d1, sid));
  const keyA = await reporterCommitment(env.REPORTER_KEY!, sid, a.id);
  const life = lifeOf();
  const at = T_CALL + 180_000;

  expect(await credibilityStep(life, view, loaded.record, at, { operatorId: a.id, key: keyA })).toBeNull();
  expect(counted.walks).toBe(1);
  // The record still names the snapshot before (no entry was written), and the life does not walk again.
  expect(await credibilityStep(life, view, loaded.record, at + 1_000, { operatorId: a.id, key: keyA })).toBeNull();
  expect(await credibilityStep(life, view, loaded.record, at + 2_000)).toBeNull();
  expect(counted.walks).toBe(1);
  // Another object life checks once for itself.
  expect(await credibilityStep(lifeOf(), view, loaded.record, at + 3_000)).toBeNull();
  expect(counted.walks).toBe(2);

  // b's first report under the same life: its value in force, recorded with the snapshot it came from.
  const keyB = await reporterCommitment(env.REPORTER_KEY!, sid, b.id);
  const step = await credibilityStep(life, view, loaded.record, at + 4_000, { operatorId: b.id, key: keyB });
  expect(step?.write.draft).toMatchObject({ kind: "credibility", body: { values: { [keyB]: 0.25 }, snapshot: next } });
  expect(step?.record.evidence.snapshot).toBe(next);
  expect(counted.walks).toBe(2);
});
