import { LEASE_TTL_MS, type RateWindow } from "../domain/limits";
import type { RateDecision } from "../durable/rate-limiter";

// Leases for the per-operator tier limit. Asking the operator's limiter object on every request is
// the largest cost of a keyed read, so an isolate may take a block of the operator's remaining
// quota at once and count it down locally. The limiter counts a lease in full when it grants it, so
// more than the limit is never served; units an isolate does not use before its lease ends are lost
// (X-RateLimit-Remaining is then conservative). Small limits are never leased: an operator with
// fewer than LEASE_FROM requests left in a window is counted exactly, one request at a time.

/** A lease is taken only when every window has at least this much room: free tiers stay exact. */
const LEASE_FROM = 128;
/** The share of the remaining room one lease takes, and its cap. */
const LEASE_SHARE = 1 / 64;
const MAX_LEASE = 256;
const MAX_LEASES = 10_000;

interface Lease {
  epoch: number;
  windowStarts: number[];
  left: number;
  /** The limiter's decision when it granted the lease: limit, reset, and remaining after the grant. */
  granted: RateDecision;
  expiresAt: number;
}

const leases = new Map<number, Lease>();
/** The room the limiter reported last, per operator: sizes the next lease. */
const lastRoom = new Map<number, number>();

const windowStarts = (windows: RateWindow[], now: number) => windows.map((w) => Math.floor(now / (w.seconds * 1000)));

/** `units` requests served from this isolate's lease, or null when the limiter must be asked. */
export function fromLease(operatorId: number, windows: RateWindow[], now: number, epoch: number, units = 1): RateDecision | null {
  const lease = leases.get(operatorId);
  if (!lease) return null;
  const starts = windowStarts(windows, now);
  if (lease.left <= 0 || lease.epoch !== epoch || Date.now() >= lease.expiresAt || starts.some((s, i) => s !== lease.windowStarts[i])) {
    leases.delete(operatorId);
    return null;
  }
  // Too few units left for a batch: the limiter counts it (the rest of this lease goes unused).
  if (lease.left < units) return null;
  lease.left -= units;
  return { ...lease.granted, remaining: lease.granted.remaining + lease.left };
}

/** How many requests to ask the limiter for: 1, or a lease when the operator has ample room. */
export function leaseWant(operatorId: number): number {
  const room = lastRoom.get(operatorId) ?? 0;
  return room >= LEASE_FROM ? Math.min(MAX_LEASE, Math.floor(room * LEASE_SHARE)) : 1;
}

/** Keeps what the limiter granted beyond this request's `units` as a lease; this request's decision. */
export function keepLease(operatorId: number, windows: RateWindow[], now: number, decision: RateDecision, units = 1): RateDecision {
  if (leases.size >= MAX_LEASES) leases.delete(leases.keys().next().value!);
  if (lastRoom.size >= MAX_LEASES) lastRoom.delete(lastRoom.keys().next().value!);
  lastRoom.set(operatorId, decision.remaining);
  if (!decision.allowed || decision.granted <= units) return decision;
  leases.set(operatorId, {
    epoch: decision.epoch,
    windowStarts: windowStarts(windows, now),
    left: decision.granted - units,
    granted: decision,
    // The limiter's end of the lease, when it gave one: an announcement of new facts waits for it.
    expiresAt: Math.min(Date.now() + LEASE_TTL_MS, decision.leaseUntil ?? Infinity),
  });
  return { ...decision, remaining: decision.remaining + decision.granted - units };
}

/** Drops this isolate's lease of an operator whose key facts just changed here. */
export function dropLease(operatorId: number): void {
  leases.delete(operatorId);
}
