// `verify` against the service in workerd: an agent's entries chain, each leaf is in its log under a
// checkpoint signed by the log's key, and they replay to the served score; then the attacks, each
// detected: a dropped, altered or reordered entry, a stale or forked checkpoint, a report promised but
// missing, a withdrawn report erased, a leaf that shows a sid or score, an attestation that opens its
// leaf to another score. Where the service cannot be made to misbehave, what it serves is tampered
// with between it and the verifier (as a compromised service or a network in between would).
import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { VERIFY_EXIT, verifyAgent, verifyAttestationLog, verifyExitCode, type AttestationLog, type ListedEntry, type ProblemKind } from "../../clients/typescript/verify";
import { canonical, sha256HexOfBytes, type Entry } from "../../src/domain/entries";
import { parseLeaf, signCheckpoint, utf8 } from "../../src/domain/log";
import { noteSigner, parseLogSigningKeys } from "../../src/domain/log/keys";
import { logOrigin } from "../../src/env";
import { forgetSnapshot } from "../../src/db/snapshot";
import { bearer, call, createOperator, publishCredibility, registerAgent, shardOf, T_CALL } from "../helpers";
import { holdQueues, type HeldQueues } from "../queues";
import { freshSid, leafOf, loggedErrors, sequencer } from "./helpers";

let queues: HeldQueues;
beforeEach(() => void (queues = holdQueues({}, { log: true })));
afterEach(() => {
  queues.release();
  forgetSnapshot();
});

const logOf = async (sid: string) => (await env.DB.prepare("SELECT log FROM agent_directory WHERE sid = ?").bind(sid).first<{ log: number }>())!.log;

async function sequence(n: number) {
  const stub = await sequencer(n);
  await queues.drain();
  await runDurableObjectAlarm(stub);
  await caches.default.delete(`https://log.cache/log/${n}/checkpoint`);
}

type Tamper = (path: string, body: string) => string;
/** The service as the verifier reaches it, with what it serves optionally rewritten on the way. */
const service = (tamper: Tamper = (_p, b) => b): typeof fetch =>
  async (input, init) => {
    const url = new URL(String(input));
    const res = await call(url.pathname + url.search, { headers: (init?.headers ?? {}) as Record<string, string> });
    if (!res.ok) return res;
    const type = res.headers.get("content-type") ?? "";
    if (!type.includes("json") && !url.pathname.endsWith("/checkpoint")) return res;
    return new Response(tamper(url.pathname, await res.text()), { status: res.status, headers: res.headers });
  };

async function report(key: string, sid: string, extra: Record<string, unknown> = {}) {
  const res = await call("/transactions", { headers: bearer(key), body: { sid, transactionType: "t", outcome: "success", reliabilitySignal: 800, ...extra } });
  expect(res.status).toBe(201);
  return (await res.json()) as { transaction_id: number; log_promise: string };
}

/**
 * An agent with a registration, the reporter's credibility entry (c = 0.8 from the snapshot in force,
 * before its first report) and three reports (entries 3 and 4 the reporter's, 5 the owner's), all
 * sequenced in its log.
 */
async function world() {
  const owner = await createOperator();
  const reporter = await createOperator({ verified: true });
  await publishCredibility({ [reporter.id]: 0.8 }, T_CALL);
  const { sid } = await registerAgent(owner.key);
  const promises = [(await report(reporter.key, sid)).log_promise, (await report(reporter.key, sid, { outcome: "failure" })).log_promise];
  await report(owner.key, sid);
  const n = await logOf(sid);
  await sequence(n);
  const verify = (extra: Partial<Parameters<typeof verifyAgent>[0]> = {}, tamper?: Tamper) =>
    verifyAgent({ baseUrl: "http://trust.test", sid, key: owner.key, now: T_CALL, fetch: service(tamper), ...extra });
  return { owner, reporter, sid, n, promises, verify };
}

const kinds = (problems: { kind: ProblemKind }[]) => [...new Set(problems.map((p) => p.kind))];

/** The entries re-chained after an edit: every hash and `prev` recomputed, as a service rewriting history would. */
async function rechain(entries: ListedEntry[]): Promise<ListedEntry[]> {
  let prev = "0".repeat(64);
  const out: ListedEntry[] = [];
  for (const [i, e] of entries.entries()) {
    const entry = { ...(JSON.parse(e.entry) as Entry), n: i + 1, prev } as Entry;
    const text = canonical(entry);
    prev = await sha256HexOfBytes(new TextEncoder().encode(text));
    out.push({ ...e, n: i + 1, entry: text, hash: prev });
  }
  return out;
}

/** Serves the owner's entries as `edit` makes them. */
async function tamperedEntries(sid: string, key: string, edit: (entries: ListedEntry[]) => ListedEntry[] | Promise<ListedEntry[]>): Promise<Tamper> {
  const page = (await (await call(`/agents/${sid}/entries`, { headers: bearer(key) })).json()) as { entries: ListedEntry[] };
  const served = JSON.stringify({ ...page, entries: await edit(page.entries) });
  return (path, body) => (path.endsWith("/entries") ? served : body);
}

describe("npm run verify (verifyAgent) against the service", () => {
  it("checks the chain, every leaf's inclusion under the signed checkpoint, the reporter's promises and the replay to the served score", async () => {
    const { verify, promises, sid } = await world();
    const result = await verify({ promises });
    expect(result.problems).toEqual([]);
    expect(result).toMatchObject({ ok: true, entries: 5, sequenced: 5, promises: { checked: 2, pending: 0 } });
    expect(result.score!.replayed).toBe(result.score!.served);
    expect(result.score!.served).not.toBe(500); // the credible reporter's votes weigh in the replay
    expect(verifyExitCode(result)).toBe(VERIFY_EXIT.ok);
    const other = await createOperator();
    expect((await call(`/agents/${sid}/entries`, { headers: bearer(other.key) })).status).toBe(403); // never another operator's
  });

  it("pages the entries with the house's cursor, oldest first, with the openings of the owner's and reporters' text", async () => {
    const { owner, sid } = await world();
    const first = (await (await call(`/agents/${sid}/entries?limit=3`, { headers: bearer(owner.key) })).json()) as { entries: ListedEntry[]; next_cursor: string };
    expect(first.entries.map((e) => [e.n, e.kind])).toEqual([[1, "registration"], [2, "credibility"], [3, "report"]]);
    expect(first.entries[2].opening).toMatchObject({ type: "t", metadata: null, salt: expect.stringMatching(/^[0-9a-f]{32}$/) });
    const second = (await (await call(`/agents/${sid}/entries?limit=3&cursor=${first.next_cursor}`, { headers: bearer(owner.key) })).json()) as { entries: ListedEntry[]; next_cursor: null };
    expect([second.entries.map((e) => e.n), second.next_cursor]).toEqual([[4, 5], null]);
    const bad = await call(`/agents/${sid}/entries?cursor=nope!`, { headers: bearer(owner.key) });
    expect([bad.status, ((await bad.json()) as { error: string }).error]).toEqual([400, "Invalid cursor"]);
  });

  it("detects a dropped entry, in the middle (the chain breaks) or at the end (the log holds more)", async () => {
    const { sid, owner, verify } = await world();
    const middle = await verify({}, await tamperedEntries(sid, owner.key, (es) => es.filter((e) => e.n !== 3)));
    expect(middle.ok).toBe(false);
    expect(kinds(middle.problems)).toContain("chain");
    const tail = await verify({}, await tamperedEntries(sid, owner.key, (es) => es.slice(0, -1)));
    expect(tail.problems).toContainEqual({ kind: "log", message: "the log holds a leaf of entry 5, but the entries end at 4: entries dropped" });
    // Dropped and re-chained so the chain holds: the log still has the original leaves.
    const rewritten = await verify({}, await tamperedEntries(sid, owner.key, (es) => rechain(es.filter((e) => e.n !== 3))));
    expect(kinds(rewritten.problems)).toContain("log");
  });

  it("detects an altered entry, even re-chained, and a reordered one", async () => {
    const { sid, owner, verify } = await world();
    const flip = (es: ListedEntry[]) => es.map((e) => (e.n === 4 ? { ...e, entry: e.entry.replace('"outcome":"failure"', '"outcome":"success"') } : e));
    const altered = await verify({}, await tamperedEntries(sid, owner.key, flip));
    expect(kinds(altered.problems)).toContain("chain");
    const rechained = await verify({}, await tamperedEntries(sid, owner.key, (es) => rechain(flip(es))));
    expect(rechained.problems).toContainEqual({ kind: "log", message: "entry 4 is not the entry and score its leaf commits to: altered or replaced" });
    const swapped = await verify({}, await tamperedEntries(sid, owner.key, (es) => [es[0], es[2], es[1], ...es.slice(3)]));
    expect(swapped.problems[0]).toEqual({ kind: "chain", message: "entry 2 is missing (found 3)" });
    expect([verifyExitCode(swapped), verifyExitCode(rechained)]).toEqual([VERIFY_EXIT.chain, VERIFY_EXIT.log]);
  });

  it("detects a stale checkpoint presented as current, and a forked one", async () => {
    const { sid, n, verify, reporter } = await world();
    const old = await (await call(`/log/${n}/checkpoint`)).text();
    await report(reporter.key, sid);
    await sequence(n);
    const current = await (await call(`/log/${n}/checkpoint`)).text();
    expect((await verify({ lastCheckpoint: old })).ok).toBe(true);
    const stale = await verify({ lastCheckpoint: current }, (path, body) => (path.endsWith("/checkpoint") ? old : body));
    expect(kinds(stale.problems)).toContain("stale");
    // Someone holding the log's key signs another tree of the same size: a fork.
    const keys = await parseLogSigningKeys(env.LOG_SIGNING_KEYS);
    if (!keys.ok) throw new Error(keys.problem);
    const size = Number(current.split("\n")[1]);
    const forged = await signCheckpoint({ origin: logOrigin(env, n), size, root: new Uint8Array(32).fill(7) }, [await noteSigner(keys.keys[0], logOrigin(env, n))]);
    const forked = await verify({ lastCheckpoint: current }, (path, body) => (path.endsWith("/checkpoint") ? forged : body));
    expect(kinds(forked.problems)).toContain("fork");
  });

  it("detects a report promised but missing from the log, and one dropped from the entries", async () => {
    const { sid, n, owner, verify, reporter } = await world();
    const { log_promise } = await report(reporter.key, sid);
    // The leaf never reaches the log: its message lost, and the agent's outbox cursor moved past it as if sent.
    queues.pending.splice(0);
    await (await shardOf(sid)).prepare("UPDATE agents SET published = seq WHERE sid = ?").bind(sid).run();
    await sequence(n);
    const soon = await verify({ promises: [log_promise] });
    expect(soon.promises).toEqual({ checked: 1, pending: 1 });
    const later = await verify({ promises: [log_promise], now: T_CALL + 25 * 3_600_000, key: undefined });
    expect(later.problems).toContainEqual({ kind: "promise", message: "the report promised as entry 6 is missing from the log" });
    const dropped = await verify({ promises: [log_promise] }, await tamperedEntries(sid, owner.key, (es) => es.slice(0, 5)));
    expect(dropped.problems).toContainEqual({ kind: "promise", message: "entry 6 promised to a reporter is not among the entries: dropped or replaced" });
  });

  it("keeps a withdrawn report, followed by its withdrawal, and detects it erased", async () => {
    const { sid, owner, n, verify, reporter } = await world();
    const { transaction_id } = await report(reporter.key, sid, { outcome: "failure" });
    expect((await call(`/transactions/${transaction_id}/dispute`, { headers: bearer(owner.key), body: { reason: "never happened" } })).status).toBe(201);
    expect((await call(`/disputes/${transaction_id}/respond`, { headers: bearer(reporter.key), body: { stand: false } })).status).toBe(200);
    await sequence(n);
    const honest = await verify();
    expect(honest.problems).toEqual([]);
    // The dispute's opening is an entry of its own.
    expect(honest).toMatchObject({ entries: 8, sequenced: 8 });
    // The report and its dispute and withdrawal erased, the rest re-chained: the log still has all eight.
    const erased = await verify({}, await tamperedEntries(sid, owner.key, (es) => rechain(es.slice(0, 5))));
    expect(erased.problems).toContainEqual({ kind: "log", message: "the log holds a leaf of entry 8, but the entries end at 5: entries dropped" });
    // The withdrawal dropped, so that the report would count again: the log holds the withdrawal.
    const unwithdrawn = await verify({}, await tamperedEntries(sid, owner.key, (es) => es.slice(0, 7)));
    expect(kinds(unwithdrawn.problems)).toContain("log");
  });

  it("refuses a leaf that shows a sid or a score beside its two fields, so the log never holds one", async () => {
    const log = await sequencer(13);
    const sid = freshSid();
    const { leaf, epoch } = await leafOf(sid, 1);
    const { result } = await loggedErrors(() => log.append([{ sid, n: 1, epoch, leaf: { ...leaf, sid, score: 712 } as never }]));
    expect(result).toEqual({ accepted: [], refused: [{ sid, seq: 1, reason: "a leaf has no field sid" }], ahead: [] });
    // Nor does a client take such bytes for a leaf, should an entry bundle hold them.
    expect(parseLeaf(utf8(canonical({ ...leaf, score: 712 })))).toBeNull();
    expect(parseLeaf(utf8(canonical(leaf)))).toEqual(leaf);
  });

  it("checks an attestation's log offline, and refuses an opening to another score or a leaf not in the tree", async () => {
    const { sid, n } = await world();
    const jws = ((await (await call(`/score/${sid}/attestation`, { headers: { "cf-connecting-ip": "198.51.100.77" } })).json()) as { attestation: string }).attestation;
    const claims = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(jws.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)))) as { log: AttestationLog };
    const keys = ((await (await call("/log/keys")).json()) as { logs: { log: number; verifier_keys: string[] }[] }).logs.find((l) => l.log === n)!.verifier_keys;
    expect(claims.log).toMatchObject({ origin: logOrigin(env, n), opening: { sid, n: 5 } });
    expect(await verifyAttestationLog(claims.log, keys, sid)).toEqual([]);
    const lying = { ...claims.log, opening: { ...claims.log.opening, score: claims.log.opening.score + 100 } };
    expect(await verifyAttestationLog(lying, keys)).toEqual([{ kind: "log", message: "the attestation's opening does not open its leaf's commitment" }]);
    const moved = { ...claims.log, index: claims.log.index === 0 ? 1 : 0 };
    expect((await verifyAttestationLog(moved, keys)).map((p) => p.kind)).toContain("log");
  });
});
