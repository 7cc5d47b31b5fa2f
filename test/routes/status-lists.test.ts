// The status lists (GET /status/{n}): read with @sd-jwt/jwt-status-list and verified with jose
// against the served JWKS, as a relying party would; fed by agents' events in any order.
import { getListFromStatusListJWT } from "@sd-jwt/jwt-status-list";
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from "jose";
import { describe, expect, it } from "vitest";
import { DECOYS_PER_LIST, LIST_CAPACITY, STATUS_VALUES, eventVersion, isNewer } from "../../src/domain/status-list";
import { dropAnswer } from "../../src/http/edge-cache";
import { statusListCacheKey } from "../../src/routes/status-lists";
import { ADMIN, createOperator, freshIp, registerAgent, testApp } from "../helpers";
import { holdQueues } from "../queues";
import { deliverEvents, statusEvent } from "./status-helpers";

const T0 = Date.parse("2026-11-21T10:20:30Z");
const ORIGIN = "http://trust.test";

async function placeOf(sid: string) {
  const row = await env.DB.prepare("SELECT status_list AS list, status_idx AS idx FROM agent_directory WHERE sid = ?").bind(sid).first<{ list: number | null; idx: number | null }>();
  return row!;
}

let slot = 0;

/**
 * The app in an hour of its own (the lists are shared by the tests of this file: each test's reads
 * come after the last one's builds), and a reader of list `n` that verifies it (jose, the served JWKS) and decodes it (@sd-jwt/jwt-status-list). */
function world() {
  const start = T0 + ++slot * 3_600_000;
  const h = testApp({ now: start });
  const read = async (list: number) => {
    // A minute passing, for the edge cache: the next read asks the list's object again.
    await dropAnswer(statusListCacheKey(ORIGIN, list));
    const res = await h.request(`/status/${list}`, { headers: { "cf-connecting-ip": freshIp() } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/statuslist+jwt");
    const token = await res.text();
    const jwks = (await (await h.request("/.well-known/jwks.json")).json()) as JSONWebKeySet;
    const { payload } = await jwtVerify(token, createLocalJWKSet(jwks), { typ: "statuslist+jwt", subject: `${ORIGIN}/status/${list}`, currentDate: new Date(h.clock.now) });
    return { token, payload, list: getListFromStatusListJWT(token) };
  };
  return { h, read, start };
}

const event = statusEvent;
const deliver = deliverEvents;

describe("GET /status/{n}", () => {
  it("serves a signed Token Status List: 2 bits, ZLIB, the agent at its index valid, ttl 300, one hour of validity", async () => {
    const { read, start } = world();
    const owner = await createOperator();
    const { sid } = await registerAgent(owner.key);
    const place = await placeOf(sid);
    expect(place.list).not.toBeNull();
    const { token, payload, list } = await read(place.list!);
    expect(decodeProtectedHeader(token)).toMatchObject({ alg: "EdDSA", typ: "statuslist+jwt" });
    expect(payload).toMatchObject({ iss: ORIGIN, sub: `${ORIGIN}/status/${place.list}`, iat: start / 1000, exp: start / 1000 + 3600, ttl: 300 });
    expect(list.getBitsPerStatus()).toBe(2);
    expect(list.statusList).toHaveLength(LIST_CAPACITY);
    expect(list.getStatus(place.idx!)).toBe(STATUS_VALUES.valid);
    // The decoys: non-zero entries no agent holds, however few agents there are.
    expect(list.statusList.filter((v) => v !== 0).length).toBeGreaterThanOrEqual(DECOYS_PER_LIST);
  });

  it("places agents at random indices, never a decoy's, and keeps each agent's place", async () => {
    const { read } = world();
    const owner = await createOperator();
    const places = [];
    for (let i = 0; i < 4; i++) places.push(await placeOf((await registerAgent(owner.key)).sid));
    const { list } = await read(places[0].list!);
    for (const p of places) expect(list.getStatus(p.idx!)).toBe(0);
    const sorted = places.map((p) => p.idx!).sort((a, b) => a - b);
    // Registration order says nothing: four consecutive registrations are not four neighbours.
    expect(sorted[3] - sorted[0]).toBeGreaterThan(4);
    expect(new Set(sorted).size).toBe(4);
  });

  it("shows a suspension (2) and a caution (3) from the agents' events, the suspension winning", async () => {
    const { h, read, start } = world();
    const owner = await createOperator();
    const { sid } = await registerAgent(owner.key);
    const place = await placeOf(sid);
    await deliver([event(sid, "score.changed", { recommendation: "caution" }, "aaaaaa", 1, T0)]);
    h.clock.now = start + 61_000;
    expect((await read(place.list!)).list.getStatus(place.idx!)).toBe(STATUS_VALUES.caution);
    await deliver([event(sid, "agent.status_changed", { status: "suspended", previous_status: "active" }, "aaaaaa", 2, T0 + 1)]);
    h.clock.now = start + 122_000;
    expect((await read(place.list!)).list.getStatus(place.idx!)).toBe(STATUS_VALUES.suspended);
    await deliver([event(sid, "agent.status_changed", { status: "active", previous_status: "suspended" }, "aaaaaa", 3, T0 + 2)]);
    h.clock.now = start + 183_000;
    expect((await read(place.list!)).list.getStatus(place.idx!)).toBe(STATUS_VALUES.caution);
  });

  it("follows a real suspension end to end: the admin's change, the agent's event, the events queue, the list", async () => {
    const { h, read, start } = world();
    const owner = await createOperator();
    const { sid } = await registerAgent(owner.key);
    const place = await placeOf(sid);
    const entry = () =>
      runInDurableObject(env.STATUS_LIST.getByName(`list:${place.list}`), (_o, state) => state.storage.sql.exec<{ value: number }>("SELECT value FROM entries WHERE idx = ?", place.idx).one().value);
    // The events queue held and driven by the test: the list learns of the change through it alone.
    const queues = holdQueues();
    try {
      expect((await h.request(`/admin/agents/${sid}`, { headers: ADMIN, body: { status: "suspended" } })).status).toBe(200);
      expect(queues.pending.some((m) => m.queue === "trust-events" && (m.body as { type: string; sid: string }).type === "agent.status_changed" && (m.body as { sid: string }).sid === sid)).toBe(true);
      expect(await entry()).toBe(STATUS_VALUES.valid);
      await queues.drain();
    } finally {
      queues.release();
    }
    expect(await entry()).toBe(STATUS_VALUES.suspended);
    h.clock.now = start + 61_000;
    expect((await read(place.list!)).list.getStatus(place.idx!)).toBe(STATUS_VALUES.suspended);
  });

  it("never lets an older event overwrite a newer value: repeated, late, or from an older storage of the agent", async () => {
    const { h, read, start } = world();
    const owner = await createOperator();
    const { sid } = await registerAgent(owner.key);
    const place = await placeOf(sid);
    const suspended = event(sid, "agent.status_changed", { status: "suspended" }, "bbbbbb", 7, T0 + 5_000);
    const older = event(sid, "agent.status_changed", { status: "active" }, "bbbbbb", 6, T0 + 9_000);
    const olderStorage = event(sid, "agent.status_changed", { status: "active" }, "cccccc", 40, T0 + 4_000);
    expect(await deliver([suspended, older, suspended, olderStorage])).toMatchObject({ explicitAcks: ["m0", "m1", "m2", "m3"], retryMessages: [] });
    h.clock.now = start + 61_000;
    expect((await read(place.list!)).list.getStatus(place.idx!)).toBe(STATUS_VALUES.suspended);
    // A newer storage's later event wins (the object was rebuilt: its numbers start again).
    await deliver([event(sid, "agent.status_changed", { status: "active" }, "dddddd", 1, T0 + 6_000)]);
    h.clock.now = start + 122_000;
    expect((await read(place.list!)).list.getStatus(place.idx!)).toBe(STATUS_VALUES.valid);
  });

  it("an event about another agent's index changes nothing there", async () => {
    const { h, read, start } = world();
    const owner = await createOperator();
    const a = await registerAgent(owner.key);
    const b = await registerAgent(owner.key);
    const pa = await placeOf(a.sid);
    const pb = await placeOf(b.sid);
    // The object checks the sid an index belongs to, whatever the caller says.
    await runInDurableObject(env.STATUS_LIST.getByName(`list:${pb.list}`), (o) =>
      o.apply([{ sid: a.sid, idx: pb.idx!, kind: "status", value: "suspended", version: { at: T0 + 1, epoch: null, n: 0 } }]),
    );
    h.clock.now = start + 61_000;
    const { list } = await read(pb.list!);
    expect(list.getStatus(pb.idx!)).toBe(0);
    expect(list.getStatus(pa.idx!)).toBe(0);
  });

  it("is rebuilt at most once a minute, and stamped again when ten minutes old", async () => {
    const { h, read, start } = world();
    const owner = await createOperator();
    const { sid } = await registerAgent(owner.key);
    const other = await registerAgent(owner.key);
    const place = await placeOf(sid);
    // A change, so that the read at 600 s builds the list.
    await deliver([event(other.sid, "score.changed", { recommendation: "caution" }, "ffffff", 1, T0)]);
    h.clock.now = start + 600_000;
    const first = await read(place.list!);
    expect(first.payload.iat).toBe((start + 600_000) / 1000);
    await deliver([event(sid, "score.changed", { recommendation: "caution" }, "eeeeee", 1, T0)]);
    h.clock.now = start + 659_000;
    const early = await read(place.list!);
    expect(early.list.getStatus(place.idx!)).toBe(0);
    expect(early.token).toBe(first.token);
    h.clock.now = start + 660_000;
    const rebuilt = await read(place.list!);
    expect(rebuilt.list.getStatus(place.idx!)).toBe(STATUS_VALUES.caution);
    expect(rebuilt.payload.iat).toBe((start + 660_000) / 1000);
    h.clock.now = start + 660_000 + 599_000;
    expect((await read(place.list!)).payload.iat).toBe((start + 660_000) / 1000);
    h.clock.now = start + 660_000 + 600_000;
    expect((await read(place.list!)).payload.iat).toBe((start + 1_260_000) / 1000);
  });

  it("is a public read: CORS, an ETag and 304, cached at the edge for a minute", async () => {
    const { h, read } = world();
    const owner = await createOperator();
    const place = await placeOf((await registerAgent(owner.key)).sid);
    await read(place.list!);
    const res = await h.request(`/status/${place.list}`, { headers: { origin: "https://shop.example" } });
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("cache-control")).toBe("public, max-age=60");
    const etag = res.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]{40}"$/);
    expect((await h.request(`/status/${place.list}`, { headers: { "if-none-match": etag } })).status).toBe(304);
  });

  it("answers 404 for a list nobody is in and 400 for a number that names no list", async () => {
    const { h } = world();
    const missing = await h.request("/status/99999", { headers: { "cf-connecting-ip": freshIp() } });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: "Status list not found" });
    for (const bad of ["abc", "00", "-1", "100000", "1e3"]) {
      const res = await h.request(`/status/${bad}`, { headers: { "cf-connecting-ip": freshIp() } });
      expect(res.status, bad).toBe(400);
    }
  });
});

describe("status pointers", () => {
  it("an attestation carries status_list {idx, uri} beside its unchanged status claim", async () => {
    const { h } = world();
    const owner = await createOperator();
    const { sid } = await registerAgent(owner.key);
    const place = await placeOf(sid);
    const res = await h.request(`/score/${sid}/attestation`, { headers: { "cf-connecting-ip": freshIp() } });
    const claims = decodeJwt(((await res.json()) as { attestation: string }).attestation);
    expect(claims.status).toBe("active");
    expect(claims.status_list).toEqual({ idx: place.idx, uri: `${ORIGIN}/status/${place.list}` });
  });
});

describe("POST /admin/status-lists/backfill", () => {
  it("lists agents from before the lists with what their rows say, page by page, and never moves a listed agent", async () => {
    const { h, read, start } = world();
    const owner = await createOperator();
    const old = [await registerAgent(owner.key), await registerAgent(owner.key), await registerAgent(owner.key)];
    const listed = await placeOf(old[0].sid);
    // Two agents as the lists' migration finds them: no place yet; one of them suspended.
    for (const a of old.slice(1)) await env.DB.prepare("UPDATE agent_directory SET status_list = NULL, status_idx = NULL WHERE sid = ?").bind(a.sid).run();
    await h.request(`/admin/agents/${old[2].sid}`, { headers: ADMIN, body: { status: "suspended" } });
    let cursor: string | null | undefined;
    let total = 0;
    // Each page says how many unlisted agents come after it: what is left shrinks by the page, to 0.
    const left: number[] = [];
    do {
      const res = await h.request("/admin/status-lists/backfill", { headers: ADMIN, body: cursor ? { limit: 1, cursor } : { limit: 1 } });
      expect(res.status).toBe(200);
      const page = (await res.json()) as { listed: number; skipped: number; remaining: number; next_cursor: string | null };
      total += page.listed;
      left.push(page.listed + page.skipped + page.remaining);
      cursor = page.next_cursor;
      if (!cursor) expect(page.remaining).toBe(0);
    } while (cursor);
    expect(left[0]).toBeGreaterThanOrEqual(2);
    expect(left).toEqual(left.map((_, i) => left[0] - i));
    expect(total).toBeGreaterThanOrEqual(2);
    expect(await placeOf(old[0].sid)).toEqual(listed);
    const p1 = await placeOf(old[1].sid);
    const p2 = await placeOf(old[2].sid);
    h.clock.now = start + 61_000;
    expect((await read(p1.list!)).list.getStatus(p1.idx!)).toBe(STATUS_VALUES.valid);
    expect((await read(p2.list!)).list.getStatus(p2.idx!)).toBe(STATUS_VALUES.suspended);
    // Nothing left: a call without a cursor lists nothing more.
    expect(await (await h.request("/admin/status-lists/backfill", { headers: ADMIN, body: {} })).json()).toMatchObject({ listed: 0, next_cursor: null });
  });

  it("needs the admin token and a sane body", async () => {
    const { h } = world();
    expect((await h.request("/admin/status-lists/backfill", { body: {} })).status).toBe(401);
    expect((await h.request("/admin/status-lists/backfill", { headers: ADMIN, body: { limit: 500 } })).status).toBe(400);
    expect((await h.request("/admin/status-lists/backfill", { headers: ADMIN, body: { cursor: "!!" } })).status).toBe(400);
  });

  it("an agent with no place gets one at its first attestation", async () => {
    const { h } = world();
    const owner = await createOperator();
    const { sid } = await registerAgent(owner.key);
    await env.DB.prepare("UPDATE agent_directory SET status_list = NULL, status_idx = NULL WHERE sid = ?").bind(sid).run();
    const res = await h.request(`/score/${sid}/attestation`, { headers: { "cf-connecting-ip": freshIp() } });
    const claims = decodeJwt(((await res.json()) as { attestation: string }).attestation);
    const place = await placeOf(sid);
    expect(place.idx).not.toBeNull();
    expect(claims.status_list).toEqual({ idx: place.idx, uri: `${ORIGIN}/status/${place.list}` });
  });
});

describe("versions", () => {
  it("orders one storage's events by number and others by time; equal is not newer", () => {
    const v = (at: number, epoch: string | null, n: number) => ({ at, epoch, n });
    expect(isNewer(v(1, "a", 2), v(9, "a", 1))).toBe(true);
    expect(isNewer(v(9, "a", 1), v(1, "a", 2))).toBe(false);
    expect(isNewer(v(5, "b", 1), v(4, "a", 9))).toBe(true);
    expect(isNewer(v(4, "b", 99), v(5, "a", 1))).toBe(false);
    expect(isNewer(v(5, "a", 1), v(5, "a", 1))).toBe(false);
    expect(isNewer(v(5, null, 0), null)).toBe(true);
    expect(isNewer(v(5, "a", 1), v(5, null, 0))).toBe(true);
    expect(isNewer(v(5, null, 0), v(5, "a", 1))).toBe(false);
    expect(eventVersion({ id: "evt_3f9a0c1d2e4b5a69_a1b2c3d4e5f6_12", timestamp: "2026-11-21T10:20:30.000Z" })).toEqual(v(T0, "a1b2c3d4e5f6", 12));
    expect(eventVersion({ id: "something-else", timestamp: "2026-11-21T10:20:30.000Z" })).toBeNull();
  });
});
