// The service under `wrangler dev` for the chaos run: throw-away persisted state in a temp
// directory (the D1 migrations applied there first), one port on the loopback interface kept across
// restarts, the same secrets at every start (reporters' commitments and log leaves depend on them),
// and the whole process group killed with SIGKILL on demand. Everything it started is stopped and
// its directory removed by `dispose`, also when the run fails or is interrupted.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { migrateInProcess } from "../d1.mjs";
import { secretVarArgs } from "../local-secrets.mjs";
import { startLocalDoh, type LocalDoh } from "./doh";

const HOST = "127.0.0.1";
const START_TIMEOUT_MS = 180_000;

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A port nothing listens on right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, HOST, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface ServiceOptions {
  root: string;
  log?: (line: string) => void;
}

export class ChaosService {
  readonly temp: string;
  readonly persistTo: string;
  readonly adminToken = randomBytes(24).toString("hex");
  url = "";
  doh: LocalDoh | null = null;
  /** Why webhooks could not be registered (no openssl), or null. */
  dohProblem: string | null = null;
  starts = 0;
  kills = 0;
  private port = 0;
  private dev: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  private output = "";
  private readonly secrets = secretVarArgs("chaos");
  private readonly env: NodeJS.ProcessEnv;
  readonly root: string;
  private disposed = false;

  constructor(private readonly options: ServiceOptions) {
    this.root = options.root;
    this.temp = mkdtempSync(join(tmpdir(), "trust-chaos-"));
    this.persistTo = join(this.temp, "state");
    const bin = join(options.root, "node_modules", ".bin");
    this.env = {
      ...process.env,
      PATH: `${bin}${delimiter}${process.env.PATH ?? ""}`,
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      WRANGLER_SEND_METRICS: "false",
      WRANGLER_REGISTRY_PATH: join(this.temp, "registry"),
      CI: "true",
      NO_COLOR: "1",
    };
  }

  /** The environment wrangler runs with (its own registry, no metrics, no cf fetch). */
  get environment(): NodeJS.ProcessEnv {
    return this.env;
  }

  private log(line: string) {
    this.options.log?.(line);
  }

  /** Applies the migrations of every D1 database to the state, and starts the local resolver. */
  async prepare(): Promise<void> {
    const started = Date.now();
    // wrangler's local runtime reads these from this process's environment.
    process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
    process.env.WRANGLER_SEND_METRICS = "false";
    process.env.WRANGLER_LOG ??= "error";
    await migrateInProcess(this.options.root, this.persistTo);
    this.log(`migrations applied in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    try {
      this.doh = await startLocalDoh(this.temp);
    } catch (err) {
      this.dohProblem = (err as Error).message;
      this.log(`no local resolver (${this.dohProblem}): webhooks are not registered`);
    }
    this.port = await freePort();
    this.url = `http://${HOST}:${this.port}`;
  }

  get running(): boolean {
    return this.dev !== null;
  }

  /** Starts wrangler dev on the state and waits until it answers. */
  async start(): Promise<void> {
    const started = Date.now();
    const inspector = await freePort();
    const vars = ["--var", `ADMIN_TOKEN:${this.adminToken}`, "--var", "RETURN_KEYS_IN_RESPONSES:true", ...this.secrets];
    if (this.doh) vars.push("--var", `DOH_ENDPOINT:${this.doh.endpoint}`);
    const args = ["dev", "--ip", HOST, "--port", String(this.port), "--inspector-port", String(inspector), "--persist-to", this.persistTo, ...vars, "--log-level", "warn"];
    const env = this.doh ? { ...this.env, NODE_EXTRA_CA_CERTS: this.doh.caFile } : this.env;
    const wrangler = join(this.options.root, "node_modules", ".bin", process.platform === "win32" ? "wrangler.cmd" : "wrangler");
    // Its own process group (wrangler starts workerd children), so one signal reaches them all.
    const dev = spawn(wrangler, args, { cwd: this.options.root, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    this.dev = dev;
    this.output = "";
    const keep = (chunk: Buffer) => (this.output = (this.output + chunk.toString()).slice(-20_000));
    dev.stdout!.on("data", keep);
    dev.stderr!.on("data", keep);
    let gone = false;
    this.exited = new Promise((resolve) => dev.on("exit", () => resolve(void (gone = true))));
    const until = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (gone) {
        this.dev = null;
        throw new Error(`wrangler dev exited during start-up:\n${this.output.slice(-4000)}`);
      }
      try {
        const res = await fetch(`${this.url}/`, { signal: AbortSignal.timeout(2000) });
        await res.arrayBuffer();
        if (res.ok) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > until) {
        await this.kill();
        throw new Error(`wrangler dev was not ready within ${START_TIMEOUT_MS / 1000} s:\n${this.output.slice(-4000)}`);
      }
      await sleep(200);
    }
    this.starts++;
    this.log(`service up (start ${this.starts}) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }

  /** SIGKILL to the whole process group: wrangler, workerd and anything they started. */
  async kill(): Promise<void> {
    if (!this.dev) return;
    const pid = this.dev.pid!;
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // already gone
    }
    await Promise.race([this.exited, sleep(10_000)]);
    this.dev = null;
    this.kills++;
    // The group's other members (workerd) die with the signal; give the port back to the system.
    await waitUntilClosed(this.port);
  }

  /** A graceful stop (SIGTERM, then SIGKILL after 10 s): the state on disk is then quiet. */
  async stop(): Promise<void> {
    if (!this.dev) return;
    const pid = this.dev.pid!;
    try {
      process.kill(-pid, "SIGTERM");
    } catch {
      // already gone
    }
    const done = await Promise.race([this.exited.then(() => true), sleep(10_000).then(() => false)]);
    if (!done) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // already gone
      }
      await Promise.race([this.exited, sleep(5_000)]);
    }
    this.dev = null;
    await waitUntilClosed(this.port);
  }

  /** The last lines wrangler printed (for a failure's report). */
  tail(chars = 4000): string {
    return this.output.slice(-chars);
  }

  /** Stops everything and removes the temp directory; safe to call more than once, and synchronously (`sync`) from an exit handler. */
  dispose(sync = false): Promise<void> | void {
    if (this.disposed) return;
    const finish = () => {
      this.disposed = true;
      rmSync(this.temp, { recursive: true, force: true });
    };
    if (sync) {
      if (this.dev) {
        try {
          process.kill(-this.dev.pid!, "SIGKILL");
        } catch {
          // already gone
        }
        this.dev = null;
      }
      finish();
      return;
    }
    return (async () => {
      await this.stop();
      await this.doh?.close();
      finish();
    })();
  }
}

/** Waits until nothing accepts connections on the port (at most 10 s). */
async function waitUntilClosed(port: number): Promise<void> {
  const until = Date.now() + 10_000;
  while (Date.now() < until) {
    try {
      await fetch(`http://${HOST}:${port}/`, { signal: AbortSignal.timeout(500) }).then((r) => r.arrayBuffer());
    } catch {
      return;
    }
    await sleep(100);
  }
}
