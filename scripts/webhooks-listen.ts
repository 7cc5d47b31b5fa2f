// `npm run webhooks:listen [-- options]`: a webhook endpoint on this machine for local development.
// It registers itself with the running service, prints every delivery with its Standard Webhooks
// signature checked, and deletes its registration on exit (Ctrl-C, SIGTERM). On start it deletes
// this operator's loopback registrations older than a day (listeners that never got to clean up).
//
//   --key KEY        an operator API key with webhooks:write (else TRUST_API_KEY)
//   --url URL        the service (else TRUST_API_URL, else http://127.0.0.1:8787, npm start's)
//   --port N         the port to listen on, on 127.0.0.1 (default 9911; 0: any free port)
//   --events A,B     the event types to receive (default: every type)
//   --no-ping        do not send a test ping once registered
//
// The service delivers to 127.0.0.1 only under ALLOW_LOOPBACK_WEBHOOKS=true with a loopback
// PUBLIC_ORIGIN: what `npm start` sets up from .dev.vars.example. A deployment never does.
// Exit status: 0 stopped by a signal; 1 the service refused or could not be reached; 2 a bad command line.
import { createServer, type Server } from "node:http";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { createTrustClient, type TrustClient } from "../clients/typescript";
import { EVENT_TYPES, type EventType } from "../src/domain/events";
import { isLoopbackUrl } from "../src/net/loopback";
import { verifyDelivery } from "../examples/webhook-receiver.mjs";

export const DEFAULT_URL = "http://127.0.0.1:8787";
export const DEFAULT_PORT = 9911;
/** Loopback registrations older than this are a listener's that never cleaned up. */
export const STALE_AFTER_MS = 86_400_000;

export class UsageError extends Error {}
export class ServiceError extends Error {}

export interface ListenOptions {
  url: string;
  key: string;
  port: number;
  events: EventType[] | undefined;
  ping: boolean;
}

/** The command line, checked. Throws UsageError. */
export function parseCommandLine(argv: string[], env: Record<string, string | undefined> = process.env): ListenOptions {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { key: { type: "string" }, url: { type: "string" }, port: { type: "string" }, events: { type: "string" }, ping: { type: "boolean", default: true } },
      allowNegative: true,
      strict: true,
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const key = values.key ?? env.TRUST_API_KEY;
  if (!key) throw new UsageError("Give an operator API key with webhooks:write: --key sk_svc_... or TRUST_API_KEY");
  const url = values.url ?? env.TRUST_API_URL ?? DEFAULT_URL;
  if (!/^https?:\/\//.test(url)) throw new UsageError(`--url must be an http(s) URL such as ${DEFAULT_URL}, not "${url}"`);
  const port = Number(values.port ?? DEFAULT_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number, not "${values.port}"`);
  let events: EventType[] | undefined;
  if (values.events !== undefined) {
    events = values.events.split(",").map((e) => e.trim()) as EventType[];
    const unknown = events.find((e) => !(EVENT_TYPES as readonly string[]).includes(e));
    if (unknown) throw new UsageError(`--events takes types among ${EVENT_TYPES.join(", ")}; not "${unknown}"`);
  }
  return { url, key, port, events, ping: values.ping };
}

type Answer<T> = { data?: T; error?: unknown; response: Response };

function ok<T>(what: string, answer: Answer<T>): T {
  if (answer.data !== undefined) return answer.data;
  const body = answer.error as { error?: unknown } | undefined;
  const message = typeof body?.error === "string" ? body.error : JSON.stringify(answer.error ?? null);
  throw new ServiceError(`${what}: the service answered ${answer.response.status}: ${message}`);
}

/** The registrations a listener left behind: loopback URLs registered more than a day before `now`. */
export function staleLoopback<W extends { url: string; created_at: string }>(webhooks: W[], now: number): W[] {
  return webhooks.filter((w) => isLoopbackUrl(w.url) && now - Date.parse(w.created_at) > STALE_AFTER_MS);
}

async function allWebhooks(client: TrustClient) {
  const all = [];
  let cursor: string | undefined;
  do {
    const page = ok("listing webhooks", await client.GET("/webhooks", { params: { query: { limit: 200, cursor } } }));
    all.push(...page.webhooks);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return all;
}

/** One line per delivery: its id, and its type and data when the signature holds. */
function receiver(secret: () => string | null, print: (line: string) => void): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const id = String(req.headers["webhook-id"] ?? "(no webhook-id)");
      const key = secret();
      if (!key) return void res.writeHead(503).end("not registered yet");
      try {
        const event = verifyDelivery(key, Buffer.concat(chunks).toString("utf8"), req.headers) as { type: string; data: unknown };
        print(`✔ ${new Date().toISOString()} ${event.type} ${id} signature ok\n  ${JSON.stringify(event.data)}`);
        res.writeHead(204).end();
      } catch (err) {
        print(`✘ ${new Date().toISOString()} ${id} signature refused: ${(err as Error).message}`);
        res.writeHead(400).end("signature refused");
      }
    });
  });
}

export interface Listener {
  webhookId: number;
  endpoint: string;
  /** Deletes the registration and closes the receiver. */
  stop(): Promise<void>;
}

/** Starts the receiver, cleans up stale registrations, registers, and pings (unless told not to). */
export async function listen(options: ListenOptions, print: (line: string) => void = console.log, now = Date.now): Promise<Listener> {
  const client = createTrustClient({ baseUrl: options.url, token: options.key });
  let secret: string | null = null;
  const server = receiver(() => secret, print);
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(options.port, "127.0.0.1", resolve));
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  try {
    const port = (server.address() as { port: number }).port;
    const endpoint = `http://127.0.0.1:${port}/webhooks`;
    for (const stale of staleLoopback(await allWebhooks(client), now())) {
      ok("deleting a stale registration", await client.DELETE("/webhooks/{id}", { params: { path: { id: stale.id } } }));
      print(`Deleted webhook ${stale.id} (${stale.url}, registered ${stale.created_at}): a listener's that never cleaned up.`);
    }
    const created = await client.POST("/webhooks", { body: { url: endpoint, ...(options.events ? { events: options.events } : {}) } });
    if (created.response.status === 400) {
      const why = (created.error as { error?: string } | undefined)?.error;
      throw new ServiceError(
        `The service refuses ${endpoint} (${why}): it delivers to this machine only under ALLOW_LOOPBACK_WEBHOOKS=true with a loopback PUBLIC_ORIGIN, as npm start sets up.`,
      );
    }
    const { webhook, secret: whsec } = ok("registering", created);
    secret = whsec;
    print(`Listening on ${endpoint} as webhook ${webhook.id} (${webhook.events.join(", ")}). Ctrl-C deletes the registration.`);
    if (options.ping) {
      const { delivery } = ok("sending a test ping", await client.POST("/webhooks/{id}/test", { params: { path: { id: webhook.id } } }));
      if (delivery.status !== "delivered") print(`The test ping was not delivered: ${delivery.last_error}`);
    }
    let stopped = false;
    return {
      webhookId: webhook.id,
      endpoint,
      async stop() {
        if (stopped) return;
        stopped = true;
        try {
          ok("deleting the registration", await client.DELETE("/webhooks/{id}", { params: { path: { id: webhook.id } } }));
          print(`Deleted webhook ${webhook.id}.`);
        } finally {
          await close();
        }
      },
    };
  } catch (err) {
    await close();
    throw err;
  }
}

export async function main(argv: string[], env: Record<string, string | undefined> = process.env): Promise<number> {
  let options: ListenOptions;
  try {
    options = parseCommandLine(argv, env);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(err.message);
    return 2;
  }
  let listener: Listener;
  try {
    listener = await listen(options);
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause;
    if (err instanceof ServiceError) console.error(err.message);
    else if (err instanceof TypeError && cause) console.error(`Could not reach the service at ${options.url} (${cause.code}). Is it running (npm start)?`);
    else if ((err as { code?: string }).code === "EADDRINUSE") console.error(`Port ${options.port} is taken: pass --port N (0: any free port).`);
    else throw err;
    return 1;
  }
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once("SIGINT", () => resolve("SIGINT"));
    process.once("SIGTERM", () => resolve("SIGTERM"));
  });
  try {
    await listener.stop();
  } catch (err) {
    console.error(`${signal}: ${(err as Error).message}; the registration stays until the next listener removes it (a day on).`);
    return 1;
  }
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  process.exitCode = await main(process.argv.slice(2));
}
