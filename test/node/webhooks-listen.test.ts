// `npm run webhooks:listen` (scripts/webhooks-listen.ts) against the service under `wrangler dev`,
// configured as `npm start` configures it (ALLOW_LOOPBACK_WEBHOOKS=true, a loopback PUBLIC_ORIGIN):
// it registers itself, prints the test ping and a real event with their signatures checked, and
// deletes its registration when it is stopped.
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createTrustClient } from "../../clients/typescript";
import { parseCommandLine, staleLoopback, UsageError } from "../../scripts/webhooks-listen";
import { service } from "./service";

let key: string;
const root = () => createTrustClient({ baseUrl: service.url, token: service.adminToken });

beforeAll(async () => {
  const email = `listen-${Date.now()}@example.com`;
  await createTrustClient({ baseUrl: service.url }).POST("/apply", { body: { name: "Listener Test Operator", email } });
  const { data } = await root().GET("/admin/applications", { params: { query: { status: "pending" } } });
  const application = data!.applications.find((a) => a.email === email)!;
  key = (await root().POST("/admin/applications/{id}/approve", { params: { path: { id: application.id } } })).data!.api_key!;
});

/** The listener as `npm run webhooks:listen` runs it; `until(text)` resolves once its output holds `text`. */
function listener(args: string[]) {
  const child: ChildProcess = spawn(join("node_modules", ".bin", "tsx"), ["scripts/webhooks-listen.ts", ...args], {
    env: { ...process.env, TRUST_API_URL: service.url, TRUST_API_KEY: key, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const waiting: { text: string; resolve: () => void }[] = [];
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const w of waiting.filter((w) => output.includes(w.text))) {
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve();
    }
  };
  child.stdout!.on("data", onData);
  child.stderr!.on("data", onData);
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const until = (text: string) =>
    output.includes(text)
      ? Promise.resolve()
      : Promise.race([new Promise<void>((resolve) => waiting.push({ text, resolve })), exited.then(() => Promise.reject(new Error(`exited before printing "${text}":\n${output}`)))]);
  return { child, until, exited, output: () => output };
}

describe("npm run webhooks:listen", () => {
  it("registers, prints the ping and an agent's event with their signatures checked, and deletes its registration on SIGINT", async () => {
    const run = listener(["--port", "0"]);
    await run.until("Ctrl-C deletes the registration");
    const [, id] = /as webhook (\d+)/.exec(run.output())!;
    await run.until(" ping evt_");
    expect(run.output()).toMatch(/✔ \S+ ping evt_ping_[0-9a-f]{32} signature ok/);

    const operator = createTrustClient({ baseUrl: service.url, token: key });
    const { data: hooks } = await operator.GET("/webhooks");
    expect(hooks!.webhooks).toEqual([expect.objectContaining({ id: Number(id), url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/) })]);

    // A real event, through the agent's outbox and the local queues.
    const { data: agent } = await operator.POST("/register", { body: { name: "Listened Agent", modelProvider: "anthropic", modelName: "claude", tools: [] } });
    await root().POST("/admin/agents/{sid}", { params: { path: { sid: agent!.sid } }, body: { status: "suspended" } });
    await run.until(" agent.status_changed evt_");
    expect(run.output()).toMatch(new RegExp(`✔ \\S+ agent.status_changed evt_\\S+ signature ok\\n  \\{"sid":"${agent!.sid}","status":"suspended","previous_status":"active"\\}`));

    run.child.kill("SIGINT");
    expect(await run.exited).toBe(0);
    expect(run.output()).toContain(`Deleted webhook ${id}.`);
    expect((await operator.GET("/webhooks")).data!.webhooks).toEqual([]);
  });

  it("says what is wrong with a key the service refuses, with exit status 1", async () => {
    const run = listener(["--port", "0", "--key", "sk_svc_not_a_key"]);
    expect(await run.exited).toBe(1);
    expect(run.output()).toContain("listing webhooks: the service answered 401");
  });
});

describe("its command line and clean-up", () => {
  it("needs a key and checks its options", () => {
    expect(() => parseCommandLine([], {})).toThrow(UsageError);
    expect(() => parseCommandLine(["--key", "k", "--events", "score.changed,nope"], {})).toThrow('--events takes types among score.changed, agent.status_changed, agent.identity_changed, dispute.opened, dispute.answered, dispute.resolved; not "nope"');
    expect(parseCommandLine(["--no-ping", "--port", "0"], { TRUST_API_KEY: "k" })).toEqual({ url: "http://127.0.0.1:8787", key: "k", port: 0, events: undefined, ping: false });
  });

  it("removes only loopback registrations older than a day", () => {
    const now = Date.parse("2026-11-22T12:00:00Z");
    const hooks = [
      { id: 1, url: "http://127.0.0.1:9911/webhooks", created_at: "2026-11-21T11:59:59Z" },
      { id: 2, url: "http://localhost:9911/webhooks", created_at: "2026-11-20T00:00:00Z" },
      { id: 3, url: "http://[::1]:9911/webhooks", created_at: "2026-11-21T12:00:01Z" },
      { id: 4, url: "https://hooks.example.com/trust", created_at: "2026-01-01T00:00:00Z" },
    ];
    expect(staleLoopback(hooks, now).map((h) => h.id)).toEqual([1, 2]);
  });
});
