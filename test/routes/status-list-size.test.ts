// The size of a status list token and the time to build it, at 10,000 agents in one list (the
// figures in docs/performance.md): agents at random indices with the status mix below, plus the
// list's decoys, built by the list's own object and served through GET /status/{n}.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { LIST_CAPACITY, randomBelow, STATUS_VALUES } from "../../src/domain/status-list";
import { NEW_AGENT } from "../../src/domain/status-list";
import { testApp } from "../helpers";

const T0 = Date.parse("2026-11-21T10:20:30Z");
/** A pessimistic mix: 5% of agents caution, 1% suspended. */
const MIX = { caution: 0.05, suspended: 0.01 };

/** `agents` agents in list `list` (a list of its own), their values set directly in its storage. */
async function fill(list: number, agents: number) {
  const stub = env.STATUS_LIST.getByName(`list:${list}`);
  // The first one through the object: it seeds the decoys.
  await stub.assign("SID-0xffffffffffffffff", NEW_AGENT);
  await runInDurableObject(stub, (_o, state) => {
    state.storage.transactionSync(() => {
      let placed = 0;
      while (placed < agents) {
        const draw = Math.random();
        const value = draw < MIX.suspended ? STATUS_VALUES.suspended : draw < MIX.suspended + MIX.caution ? STATUS_VALUES.caution : STATUS_VALUES.valid;
        const sid = `SID-0x${placed.toString(16).padStart(16, "0")}`;
        placed += state.storage.sql.exec("INSERT OR IGNORE INTO entries (idx, sid, value) VALUES (?, ?, ?) RETURNING idx", randomBelow(LIST_CAPACITY), sid, value).toArray().length;
      }
      state.storage.sql.exec("UPDATE facts SET value = CAST(value AS INTEGER) + 1 WHERE key = 'changes'");
    });
  });
  return stub;
}

describe("status list size", () => {
  it("10,000 agents: the token's bytes and the build's time", async () => {
    const list = 90_000;
    const stub = await fill(list, 10_000);
    const started = performance.now();
    await stub.snapshot(T0 + 3_600_000);
    const buildMs = performance.now() - started;
    const h = testApp({ now: T0 + 3_600_000 });
    const token = await (await h.request(`/status/${list}`)).text();
    console.log(JSON.stringify({ agents: 10_000, token_bytes: token.length, build_ms: Math.round(buildMs) }));
    // A gateway downloads every list it needs every 5 minutes: keep one well under a small image.
    expect(token.length).toBeLessThan(64 * 1024);
  });
});
