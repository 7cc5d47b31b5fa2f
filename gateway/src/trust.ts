import { compactVerify, createLocalJWKSet, errors as joseErrors, jwtVerify, type JSONWebKeySet, type JWTPayload } from "jose";
import type { Policy } from "./policy";

// What the gateway knows of the trust service: its keys (JWKS) and its status lists, fetched when
// first needed and again when old, never per request. A copy that cannot be refreshed is used until
// the policy's limit, then the gateway is stale (and fails closed or open, as the site decides).

export class Stale extends Error {}

/** An attestation's claims, as the service signs them. */
export interface Attestation extends JWTPayload {
  sub: string;
  composite_score: number;
  recommendation: string;
  identity_level: number;
  cnf?: { jkt?: string };
  status_list?: { idx: number; uri: string };
}

interface Held<T> {
  value: T;
  fetchedAt: number;
  /** Fetched again once this old (a list: its ttl when shorter than the policy's). */
  refreshMs: number;
}

/** A status list's bytes (2 bits per entry) and when its token expires (ms). */
interface StatusList {
  bytes: Uint8Array;
  expiresAt: number;
}

/** A JWKS naming an unknown key is fetched again at most this often (a rotation). */
const UNKNOWN_KID_REFRESH_MS = 30_000;
const FETCH_TIMEOUT_MS = 5_000;

const fromBase64url = (text: string) => Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (ch) => ch.charCodeAt(0));

async function inflate(lst: string): Promise<Uint8Array> {
  const stream = new Blob([fromBase64url(lst)]).stream().pipeThrough(new DecompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

export class TrustCache {
  private jwks: Held<JSONWebKeySet> | null = null;
  private readonly lists = new Map<string, Held<StatusList>>();
  private readonly pending = new Map<string, Promise<unknown>>();

  constructor(
    private readonly policy: Policy,
    private readonly fetcher: typeof fetch,
    private readonly now: () => number,
  ) {}

  /** The attestation's claims when the service signed it (a key of its JWKS) and it has not expired. */
  async attestation(jws: string): Promise<Attestation> {
    const verify = async (jwks: JSONWebKeySet) =>
      (await jwtVerify(jws, createLocalJWKSet(jwks), { algorithms: ["EdDSA"], typ: "trust-attestation+jwt", issuer: this.policy.service, currentDate: new Date(this.now()) })).payload as Attestation;
    const jwks = await this.keys();
    try {
      return await verify(jwks);
    } catch (err) {
      if (!(err instanceof joseErrors.JWKSNoMatchingKey) || !this.jwks || this.now() - this.jwks.fetchedAt < UNKNOWN_KID_REFRESH_MS) throw err;
      // A key the copy held does not know: the service may have rotated; fetch its keys again, once.
      return verify(await this.keys(true));
    }
  }

  /** The 2-bit value at `idx` of the list at `uri`. */
  async status(uri: string, idx: number): Promise<number> {
    const list = await this.list(uri);
    if (!Number.isInteger(idx) || idx < 0 || idx >= list.bytes.length * 4) throw new Error("the status index is outside its list");
    const bit = idx * 2;
    return (list.bytes[bit >> 3] >> (bit & 7)) & 0b11;
  }

  private keys(force = false): Promise<JSONWebKeySet> {
    return this.held("jwks", () => this.jwks, (held) => (this.jwks = held), force, async () => {
      const res = await this.get(`${this.policy.service}/.well-known/jwks.json`, "application/json");
      const jwks = (await res.json()) as JSONWebKeySet;
      if (!Array.isArray(jwks.keys)) throw new Error("not a JWKS");
      return { value: jwks, refreshMs: this.policy.refreshMs };
    });
  }

  private list(uri: string): Promise<StatusList> {
    return this.held(uri, () => this.lists.get(uri) ?? null, (held) => this.lists.set(uri, held), false, async () => {
      const token = await (await this.get(uri, "application/statuslist+jwt")).text();
      const jwks = await this.keys();
      const { payload, protectedHeader } = await compactVerify(token, createLocalJWKSet(jwks));
      const claims = JSON.parse(new TextDecoder().decode(payload)) as { sub?: string; exp?: number; ttl?: number; status_list?: { bits?: number; lst?: string } };
      if (protectedHeader.typ !== "statuslist+jwt" || claims.sub !== uri) throw new Error(`${uri} answered another list`);
      if (claims.status_list?.bits !== 2 || typeof claims.status_list.lst !== "string" || typeof claims.exp !== "number") throw new Error("not a 2-bit status list");
      const expiresAt = claims.exp * 1000;
      if (expiresAt <= this.now()) throw new Error("the status list has expired");
      const ttlMs = typeof claims.ttl === "number" && claims.ttl > 0 ? claims.ttl * 1000 : this.policy.refreshMs;
      return { value: { bytes: await inflate(claims.status_list.lst), expiresAt }, refreshMs: Math.min(ttlMs, this.policy.refreshMs) };
    });
  }

  /**
   * The held copy while it is fresh; else a new one (one fetch at a time per thing); else, when the
   * fetch fails, the held copy while it is younger than the policy's limit (and, for a list, not
   * expired); else Stale.
   */
  private async held<T>(
    name: string,
    read: () => Held<T> | null,
    write: (held: Held<T>) => void,
    force: boolean,
    load: () => Promise<{ value: T; refreshMs: number }>,
  ): Promise<T> {
    const now = this.now();
    const current = read();
    // A status list past its `exp` is never used, whatever the policy.
    const usable = (h: Held<T> | null): h is Held<T> => h !== null && ((h.value as { expiresAt?: number }).expiresAt ?? Infinity) > now;
    if (current && !force && now - current.fetchedAt < current.refreshMs && usable(current)) return current.value;
    let loading = this.pending.get(name) as Promise<T> | undefined;
    if (!loading) {
      loading = load().then((fresh) => {
        write({ value: fresh.value, fetchedAt: this.now(), refreshMs: fresh.refreshMs });
        return fresh.value;
      });
      this.pending.set(name, loading);
      void loading.finally(() => this.pending.delete(name)).catch(() => {});
    }
    try {
      return await loading;
    } catch (err) {
      if (current && now - current.fetchedAt < this.policy.maxStaleMs && usable(current)) return current.value;
      throw new Stale(`${name} could not be refreshed: ${String(err)}`);
    }
  }

  private async get(url: string, accept: string): Promise<Response> {
    const res = await this.fetcher(url, { headers: { accept }, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: "manual" });
    if (!res.ok) throw new Error(`${url} answered ${res.status}`);
    return res;
  }
}
