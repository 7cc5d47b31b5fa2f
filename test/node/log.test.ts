// The transparency log from outside, against the service under wrangler dev (with test/log-worker.ts,
// which feeds a log directly): Go's own sumdb/note and sumdb/tlog verify its checkpoints, tiles,
// inclusion and consistency (test/log-verifier), and `npm run monitor` follows it. The monitor's
// alerts are checked against a log that misbehaves, served from here.
import { execFile, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifierKey } from "../../src/domain/log";
import { startService } from "../wrangler-dev.mjs";
import { FakeLog, newKey } from "../log/fake-log";

const run = promisify(execFile);
const root = join(import.meta.dirname, "..", "..");
const temp = mkdtempSync(join(tmpdir(), "trust-log-test-"));
let service: Awaited<ReturnType<typeof startService>>;
let starting: ReturnType<typeof startService> | undefined;

// A busy machine can take minutes to start a second wrangler dev; whatever happens, it is stopped.
beforeAll(async () => {
  starting = startService("log-test", { script: "test/log-worker.ts", vars: { LOG_COUNT: "2" } });
  service = await starting;
}, 300_000);
afterAll(async () => {
  await (await starting?.catch(() => null))?.stop();
  rmSync(temp, { recursive: true, force: true });
}, 300_000);

let agentCounter = 0;
/** Appends `count` leaves of fresh agents to log n; their leaves' bytes in order. */
async function append(n: number, count: number): Promise<string[]> {
  const entries = Array.from({ length: count }, (_, i) => ({
    sid: `SID-0x${(0x6000_0000 + ++agentCounter).toString(16).padStart(16, "0")}`,
    seq: 1,
    entry_hash: randomBytes(32).toString("hex"),
    score_commit: randomBytes(32).toString("hex"),
  }));
  const leaves: string[] = [];
  for (let i = 0; i < entries.length; i += 500) {
    const res = await fetch(`${service.url}/__test/log/${n}/append`, { method: "POST", body: JSON.stringify({ entries: entries.slice(i, i + 500) }) });
    const body = (await res.json()) as { refused: unknown[]; leaves: string[] };
    expect(body.refused).toEqual([]);
    leaves.push(...body.leaves);
  }
  return leaves;
}

/** The log's checkpoint once it has `size` leaves (the sequencer's alarm integrates within a second). */
async function checkpointOf(n: number, size: number): Promise<string> {
  const until = Date.now() + 30_000;
  for (;;) {
    const res = await fetch(`${service.url}/log/${n}/checkpoint`);
    const note = await res.text();
    if (res.ok && Number(note.split("\n")[1]) >= size) return note;
    if (Date.now() > until) throw new Error(`log ${n} did not reach ${size} leaves: ${res.status} ${note}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const goAvailable = spawnSync("go", ["version"]).status === 0;
if (!goAvailable && process.env.CI === "true") throw new Error("Go is missing: install golang-go and golang-golang-x-mod-dev (.ci/run does)");

describe.skipIf(!goAvailable)("Go's sumdb/note and sumdb/tlog", () => {
  const binary = join(temp, "log-verifier");

  beforeAll(async () => {
    // GOPATH mode, offline: the x/mod source of Debian's golang-golang-x-mod-dev, nothing downloaded.
    const env = { ...process.env, GO111MODULE: "off", GOPATH: "/usr/share/gocode", GOCACHE: join(temp, "go-cache"), GOPROXY: "off", GOFLAGS: "" };
    await run("go", ["build", "-o", binary, join(root, "test", "log-verifier", "main.go")], { env });
  }, 120_000);

  const verify = (args: string[]) => run(binary, args).then(
    ({ stdout }) => ({ ok: true as const, out: JSON.parse(stdout) as Record<string, unknown> }),
    (err: { stderr: string }) => ({ ok: false as const, error: err.stderr.trim() }),
  );

  it("verifies the checkpoint, every leaf's inclusion and the consistency of an older checkpoint", async () => {
    const info = (await (await fetch(`${service.url}/log/keys`)).json()) as { logs: { log: number; origin: string; verifier_keys: string[] }[] };
    const { origin, verifier_keys } = info.logs[0];
    const first = await append(0, 300);
    const old = await checkpointOf(0, 300);
    const more = await append(0, 213);
    await checkpointOf(0, 513);
    const leaves = [...first, ...more].map((leaf, index) => ({ index, leaf }));
    writeFileSync(join(temp, "leaves.json"), JSON.stringify(leaves));
    writeFileSync(join(temp, "old"), old);
    const args = ["-url", service.url, "-log", "0", "-key", verifier_keys[0], "-origin", origin, "-leaves", join(temp, "leaves.json")];
    expect(await verify([...args, "-old", join(temp, "old")])).toEqual({ ok: true, out: { origin, size: 513, leaves_checked: 513, consistent_with: 300 } });

    // And it refuses what it must: another key under the log's name, a leaf that is not the log's.
    const stranger = await verifierKey(origin, (await newKey()).publicKey);
    expect(await verify(["-url", service.url, "-log", "0", "-key", stranger, "-origin", origin, "-leaves", join(temp, "leaves.json")])).toMatchObject({
      ok: false,
      error: expect.stringContaining("note.Open"),
    });
    const altered = leaves.map((l) => (l.index === 42 ? { ...l, leaf: l.leaf.replace(/"seq":1/, '"seq":2') } : l));
    writeFileSync(join(temp, "altered.json"), JSON.stringify(altered));
    expect(await verify([...args.slice(0, -1), join(temp, "altered.json")])).toMatchObject({ ok: false, error: expect.stringContaining("entry 42 is") });
  });
});

describe("npm run monitor", () => {
  const monitor = (args: string[]) =>
    run(join(root, "node_modules", ".bin", "tsx"), [join(root, "scripts", "monitor.ts"), ...args], { cwd: root }).then(
      ({ stdout }) => ({ code: 0, out: stdout }),
      (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, out: `${err.stdout}${err.stderr}` }),
    );

  it("follows the service's log: first, unchanged, then newer and consistent", async () => {
    await append(1, 3);
    await checkpointOf(1, 3);
    const state = join(temp, "monitor-1.json");
    const args = ["--url", service.url, "--log", "1", "--state", state, "--once"];
    expect(await monitor(args)).toMatchObject({ code: 0, out: expect.stringMatching(/Pinned the keys[\s\S]*first checkpoint, 3 leaves/) });
    await append(1, 4);
    await checkpointOf(1, 7);
    expect(await monitor(args)).toMatchObject({ code: 0, out: expect.stringContaining("3 → 7 leaves, consistent") });
  });

  describe("against a log that misbehaves", () => {
    let log: FakeLog;
    let server: Server;
    let url: string;
    beforeAll(async () => {
      log = new FakeLog("misbehaving.test/log/0", await newKey());
      server = createServer(async (req, res) => {
        if (req.url === "/log/keys") {
          res.setHeader("content-type", "application/json");
          return res.end(JSON.stringify({ logs: [{ log: 0, origin: log.origin, verifier_keys: [await log.verifierKey()] }] }));
        }
        const answer = await log.fetch(`http://fake.test${req.url}`);
        res.statusCode = answer.status;
        res.end(Buffer.from(await answer.arrayBuffer()));
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const address = server.address() as { port: number };
      url = `http://127.0.0.1:${address.port}`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it("exits 2 on a fork, 3 on a shrink and 4 on a bad signature", async () => {
      const state = join(temp, "monitor-fake.json");
      const args = ["--url", url, "--log", "0", "--state", state, "--once"];
      const old = await log.grow(["a", "b", "c"]);
      expect((await monitor(args)).code).toBe(0);
      const good = await log.grow(["d"]);
      expect((await monitor(args)).code).toBe(0);
      log.served.set("checkpoint", old);
      expect(await monitor(args)).toMatchObject({ code: 3, out: expect.stringContaining("SHRINK") });
      const fork = new FakeLog(log.origin, log.key);
      await fork.grow(["a", "b", "c", "x"]);
      log.served.set("checkpoint", fork.served.get("checkpoint")!);
      const forked = await monitor(args);
      expect(forked).toMatchObject({ code: 2, out: expect.stringContaining("FORK") });
      expect(forked.out).toContain(good); // the evidence: both signed checkpoints
      await log.grow(["e"], await newKey());
      expect(await monitor(args)).toMatchObject({ code: 4, out: expect.stringContaining("no signature by a known key") });
    });
  });
});

