// A log held in memory and served by a fetch function, for the tests of clients and the monitor:
// it can sign whatever tree it is told to, which is what a misbehaving log would do.
import { EMPTY_EDGE, hashLeaf, integrate, signCheckpoint, tilePath, toBase64, utf8, verifierKey, type Edge } from "../../src/domain/log";
import { noteSigner, parseLogSigningKeys, type LogSigningKey } from "../../src/domain/log/keys";

export async function newKey(): Promise<LogSigningKey> {
  const keys = await parseLogSigningKeys(JSON.stringify([toBase64(crypto.getRandomValues(new Uint8Array(32)))]));
  if (!keys.ok) throw new Error(keys.problem);
  return keys.keys[0];
}

export class FakeLog {
  /** What the fake server answers: path under /log/0/ → body. */
  readonly served = new Map<string, Uint8Array | string>();
  private edge: Edge = EMPTY_EDGE;

  constructor(
    readonly origin: string,
    readonly key: LogSigningKey,
  ) {}

  verifierKey = () => verifierKey(this.origin, this.key.publicKey);

  /** Appends leaves (their texts) and publishes the tiles and a checkpoint signed by `signer` (default: the log's key). */
  async grow(texts: string[], signer: LogSigningKey = this.key): Promise<string> {
    const grown = await integrate(this.edge, await Promise.all(texts.map((t) => hashLeaf(utf8(t)))));
    for (const { tile, bytes } of grown.tiles) this.served.set(tilePath(tile), bytes);
    this.edge = grown.edge;
    const note = await signCheckpoint({ origin: this.origin, size: grown.edge.size, root: grown.root }, [await noteSigner(signer, this.origin)]);
    this.served.set("checkpoint", note);
    return note;
  }

  /** A fetch that serves this log at http://fake.test/log/0/; a missing partial tile is the prefix of a wider one. */
  fetch: typeof fetch = async (input) => {
    const path = new URL(String(input)).pathname.replace(/^\/log\/0\//, "");
    let body = this.served.get(path);
    const partial = /^(tile\/\d+\/[x\d/]+)\.p\/(\d+)$/.exec(path);
    if (body === undefined && partial) {
      const wider = [...this.served].find(([k]) => k === partial[1] || k.startsWith(`${partial[1]}.p/`))?.[1] as Uint8Array | undefined;
      if (wider && wider.length >= Number(partial[2]) * 32) body = wider.slice(0, Number(partial[2]) * 32);
    }
    return body === undefined ? new Response("not found", { status: 404 }) : new Response(body);
  };
}
