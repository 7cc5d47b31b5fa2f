// The IETF Token Status List (draft-ietf-oauth-status-list) as the service keeps it: lists of 2 bits
// per agent at an index drawn at random when the agent is first listed, with decoy entries, so that
// a relying party downloads a whole list and checks any agent in it offline, and neither an index nor
// a list tells an agent's age or how many agents there are.

export const STATUS_LIST_TYPE = "statuslist+jwt";
export const STATUS_LIST_MEDIA_TYPE = "application/statuslist+jwt";
export const STATUS_BITS = 2;
/** Entries in every list, whatever its fill: a list's length says nothing of how many agents it holds. */
export const LIST_CAPACITY = 1 << 20;
/** Agents per list at most: half its entries, so a random free index is found in about two draws. */
export const LIST_FILL = LIST_CAPACITY / 2;
/** Decoy entries per list: non-zero values at random indices no agent ever gets. */
export const DECOYS_PER_LIST = LIST_CAPACITY / 128;
/** Lists are numbered 0 .. MAX_LISTS - 1 (at LIST_FILL each: over 50 billion agents). */
export const MAX_LISTS = 100_000;
/** How long a relying party may keep a list before fetching it again (the token's `ttl`). */
export const STATUS_LIST_TTL_S = 300;
/** A list token's validity (`exp` − `iat`): a verifier that cannot refresh stops trusting it then. */
export const STATUS_LIST_LIFETIME_S = 3_600;
/** An unchanged list is stamped again this often, so the token served never nears its `exp`. */
export const RESTAMP_EVERY_MS = 10 * 60_000;

/**
 * The registered values (draft-ietf-oauth-status-list §7.1): 0 VALID (clear or review), 1 INVALID
 * (the agent is gone; no agent is deleted today, so the value is reserved), 2 SUSPENDED, and 3, an
 * application-specific value: the agent's recommendation is caution.
 */
export const STATUS_VALUES = { valid: 0, invalid: 1, suspended: 2, caution: 3 } as const;
export type StatusValue = (typeof STATUS_VALUES)[keyof typeof STATUS_VALUES];

/** An agent's value from its status and recommendation: suspension wins over caution. */
export function statusValue(status: string | null, recommendation: string | null): StatusValue {
  if (status === "suspended") return STATUS_VALUES.suspended;
  if (recommendation === "caution") return STATUS_VALUES.caution;
  return STATUS_VALUES.valid;
}

/**
 * When a fact about an agent was true, to order facts that arrive out of order (the events queue
 * delivers at least once, in any order). Events of one storage of the agent's object are ordered
 * exactly by their outbox number (`n`, within `epoch`); across storages, and against a fact read
 * from the agent's row, by time.
 */
export interface Version {
  at: number;
  epoch: string | null;
  n: number;
}

/** An agent's status and recommendation as of `version` (its object's, or a new agent's: before anything). */
export interface AgentFacts {
  status: string;
  recommendation: string;
  version: Version;
}

/** A new agent: active and in review, before any event of it. */
export const NEW_AGENT: AgentFacts = { status: "active", recommendation: "review", version: { at: 0, epoch: null, n: 0 } };

/**
 * Whether `candidate` is newer than `current` (none yet: anything is). Equal versions are not. At
 * the same instant an event wins over a row read: the event is a change the row may not have shown.
 */
export function isNewer(candidate: Version, current: Version | null): boolean {
  if (!current) return true;
  if (candidate.epoch !== null && candidate.epoch === current.epoch) return candidate.n > current.n;
  if (candidate.at !== current.at) return candidate.at > current.at;
  return candidate.epoch !== null && current.epoch === null;
}

/** An event's version, from its id (`evt_<sid hex>_<epoch>_<n>`) and timestamp; null for an id of another shape. */
export function eventVersion(event: { id: string; timestamp: string }): Version | null {
  const match = /^evt_[0-9a-f]+_([0-9a-f]+)_([0-9]+)$/.exec(event.id);
  const at = Date.parse(event.timestamp);
  if (!match || !Number.isFinite(at)) return null;
  return { at, epoch: match[1], n: Number(match[2]) };
}

/**
 * The list's bytes: entry i in byte ⌊i·2/8⌋ at bit (i·2) mod 8, counted from the least significant
 * bit (the draft's §4.1 layout).
 */
export function packStatuses(capacity: number, entries: Iterable<readonly [number, number]>): Uint8Array {
  const bytes = new Uint8Array((capacity * STATUS_BITS) / 8);
  for (const [idx, value] of entries) {
    const bit = idx * STATUS_BITS;
    bytes[bit >> 3] |= (value & 0b11) << (bit & 7);
  }
  return bytes;
}

/** ZLIB (RFC 1950) with DEFLATE, as the draft requires, then base64url: the token's `lst`. */
export async function compressList(bytes: Uint8Array): Promise<string> {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("deflate"));
  return base64url(new Uint8Array(await new Response(stream).arrayBuffer()));
}

export function base64url(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The URI of list `n` at the service's origin: the token's `sub` and the pointers' `uri`. */
export const statusListUri = (origin: string, list: number) => `${origin}/status/${list}`;

/** Where an agent's status is: the `status_list` member of attestations and credentials. */
export interface StatusPointer {
  idx: number;
  uri: string;
}

export interface StatusListClaims {
  iss: string;
  sub: string;
  iat: number;
  exp: number;
  ttl: number;
  status_list: { bits: typeof STATUS_BITS; lst: string };
}

/** The claims of list `list`'s token, stamped `issuedAt` (ms). */
export function statusListClaims(origin: string, list: number, lst: string, issuedAt: number): StatusListClaims {
  const iat = Math.floor(issuedAt / 1000);
  return {
    iss: origin,
    sub: statusListUri(origin, list),
    iat,
    exp: iat + STATUS_LIST_LIFETIME_S,
    ttl: STATUS_LIST_TTL_S,
    status_list: { bits: STATUS_BITS, lst },
  };
}

/** A random integer in [0, bound), without modulo bias. */
export function randomBelow(bound: number): number {
  const limit = Math.floor(0x1_0000_0000 / bound) * bound;
  const draw = new Uint32Array(1);
  for (;;) {
    crypto.getRandomValues(draw);
    if (draw[0] < limit) return draw[0] % bound;
  }
}

/** A decoy's value: suspended or caution, the values a relying party would count. */
export const decoyValue = (): StatusValue => (randomBelow(2) === 0 ? STATUS_VALUES.suspended : STATUS_VALUES.caution);
