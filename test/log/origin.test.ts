// A log's origin is fixed when the log is created and kept with it: configuration read later never
// renames a log (its checkpoints, its keys' names, what the Worker says of it).
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { verifyCheckpoint } from "../../src/domain/log";
import { testApp } from "../helpers";
import type { LogSequencer as LogSequencerUnderTest } from "../log-sequencer-under-test";
import { checkpointOf, freshSid, leafOf, sequencer, verifiersOf } from "./helpers";

/** The object's configuration from now on, as a redeployment with PUBLIC_ORIGIN changed would give it. */
const configure = (stub: Awaited<ReturnType<typeof sequencer>>, publicOrigin: string) =>
  runInDurableObject(stub, (instance) => void ((instance as LogSequencerUnderTest).vars = { PUBLIC_ORIGIN: publicOrigin }));

const firstLine = (note: string | null) => note?.slice(0, note.indexOf("\n"));

describe("a log's origin", () => {
  it("is fixed by its first leaf and kept when the public origin changes", async () => {
    const log = await sequencer(30);
    const sid = freshSid();
    await log.append([await leafOf(sid, 1)]);
    await configure(log, "https://renamed.example");
    await log.append([await leafOf(sid, 2)]);
    await runDurableObjectAlarm(log);
    expect(await log.origin()).toBe("trust.test/log/30");
    const note = await checkpointOf(30);
    expect(firstLine(note)).toBe("trust.test/log/30");
    expect((await verifyCheckpoint(note!, await verifiersOf(30), "trust.test/log/30")).size).toBe(2);
  });

  it("of a log created under another public origin is that origin's host", async () => {
    const log = await sequencer(31);
    await configure(log, "https://trust.example.com");
    await log.append([await leafOf(freshSid(), 1)]);
    await runDurableObjectAlarm(log);
    expect(await log.origin()).toBe("trust.example.com/log/31");
    expect(firstLine(await checkpointOf(31))).toBe("trust.example.com/log/31");
  });

  it("of a log from before origins were stored is the one its checkpoints carry", async () => {
    const log = await sequencer(32);
    await log.append([await leafOf(freshSid(), 1)]);
    await runDurableObjectAlarm(log);
    await runInDurableObject(log, (_instance, state) => void state.storage.kv.delete("origin"));
    await configure(log, "https://renamed.example");
    expect(await log.origin()).toBe("trust.test/log/32");
  });

  it("is what the Worker publishes, whatever its own configuration says now", async () => {
    const before = (await (await testApp().request("/log/keys")).json()) as { logs: { log: number; origin: string }[] };
    const renamed = testApp({ env: { PUBLIC_ORIGIN: "https://renamed.example" } });
    const after = (await (await renamed.request("/log/keys")).json()) as { logs: { log: number; origin: string }[] };
    expect(before.logs.map((l) => l.origin)).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((n) => `trust.test/log/${n}`));
    expect(after.logs).toEqual(before.logs);
  });
});
