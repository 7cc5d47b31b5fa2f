import { DurableObject } from "cloudflare:workers";
import { LEASE_TTL_MS, type RateWindow } from "../domain/limits";

export interface RateDecision {
  allowed: boolean;
  /** The limit of the first window given (the per-minute one for tiers). */
  limit: number;
  /** Requests left before the tightest window refuses. */
  remaining: number;
  /** Unix seconds at which the binding window resets. */
  reset: number;
  /** Seconds to wait before a refused request can pass; 0 when allowed. */
  retryAfter: number;
  /** The caller's facts are older than `epoch`: nothing was counted. */
  stale: boolean;
  /** Requests counted by this call: 1, or up to the `want` of a lease; 0 when refused. */
  granted: number;
  /**
   * The newest version announced for the bucket owner's facts (an operator's auth_epoch, raised on
   * revocation, rotation and admin changes). A caller holding facts of an older epoch reloads them.
   */
  epoch: number;
  /** When a lease (granted > 1) must no longer be served from (this object's clock, ms). */
  leaseUntil?: number;
}

/** Beyond a lease's end, how long an announcement still waits (the lease's holder learns its end a little later). */
const LEASE_MARGIN_MS = 100;

interface WindowState {
  start: number;
  count: number;
}

/**
 * One object per bucket (an IP on an endpoint, an operator, an agent's verification attempts).
 * `hit` has no await, so the object's input gate makes each call atomic: counts are exact.
 * Windows are fixed and aligned to the epoch, so every client sees the same reset instant.
 * Time comes from the caller (the Worker's injected clock), never from this object.
 */
export class RateLimiter extends DurableObject {
  private cleanupAt = 0;

  /**
   * Counts `need` requests (a batch reserves all its reports at once: all or none), or, for a lease,
   * up to `want` at once, as many as every window has room for; unless the caller's facts are older
   * than the owner's epoch (`knownEpoch`): then nothing is counted and the answer is `stale`, so the
   * caller reloads and asks again.
   */
  hit(windows: RateWindow[], now: number, knownEpoch?: number, want = 1, need = 1): RateDecision {
    const epoch = this.ctx.storage.kv.get<number>("epoch") ?? 0;
    if (knownEpoch !== undefined && knownEpoch < epoch) {
      return { allowed: false, stale: true, granted: 0, limit: windows[0].limit, remaining: 0, reset: 0, retryAfter: 0, epoch };
    }
    const states = windows.map((w) => this.current(w, now));
    const refused = states.findIndex((s, i) => s.count + need > windows[i].limit);
    const allowed = refused === -1;
    const room = Math.min(...states.map((s, i) => windows[i].limit - s.count));
    const granted = allowed ? Math.max(need, Math.min(Math.floor(want), room)) : 0;
    if (allowed) {
      states.forEach((s, i) => {
        s.count += granted;
        this.ctx.storage.kv.put(key(windows[i]), s);
      });
    }
    let leaseUntil: number | undefined;
    if (granted > need) {
      leaseUntil = Date.now() + LEASE_TTL_MS;
      this.ctx.storage.kv.put("leases_end", leaseUntil);
    }
    const binding = allowed ? tightest(windows, states) : refused;
    const resetMs = states[binding].start + windows[binding].seconds * 1000;
    const remaining = Math.min(...states.map((s, i) => Math.max(0, windows[i].limit - s.count)));
    this.scheduleCleanup(Math.max(...windows.map((w) => w.seconds)) * 1000);
    return {
      allowed,
      limit: windows[0].limit,
      remaining,
      reset: Math.ceil(resetMs / 1000),
      retryAfter: allowed ? 0 : Math.max(1, Math.ceil((resetMs - now) / 1000)),
      stale: false,
      granted,
      epoch,
      ...(leaseUntil !== undefined ? { leaseUntil } : {}),
    };
  }

  /**
   * Gives back `units` counted in the current windows (a batch's reports that were answered 503 and
   * recorded nothing): never below zero, never to a window that has moved on since they were counted.
   */
  giveBack(windows: RateWindow[], countedAt: number, units: number): void {
    for (const w of windows) {
      const state = this.current(w, countedAt);
      const stored = this.ctx.storage.kv.get<WindowState>(key(w));
      if (!stored || stored.start !== state.start || stored.count === 0) continue;
      this.ctx.storage.kv.put(key(w), { start: stored.start, count: Math.max(0, stored.count - units) });
    }
  }

  /**
   * Announces that the owner's facts changed up to `epoch` (never lowers it), and answers once no
   * lease granted under the older facts can still be served: after it, every isolate's next request
   * asks here, learns the epoch and reloads (a revoked key takes effect at once).
   */
  async raiseEpoch(epoch: number): Promise<void> {
    if (epoch <= (this.ctx.storage.kv.get<number>("epoch") ?? 0)) return;
    this.ctx.storage.kv.put("epoch", epoch);
    const wait = (this.ctx.storage.kv.get<number>("leases_end") ?? 0) + LEASE_MARGIN_MS - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }

  override async alarm(): Promise<void> {
    // Idle for a whole window: the counts are over. The epoch stays, so caches never go backwards.
    const epoch = this.ctx.storage.kv.get<number>("epoch");
    await this.ctx.storage.deleteAll();
    if (epoch !== undefined) this.ctx.storage.kv.put("epoch", epoch);
    this.cleanupAt = 0;
  }

  /**
   * Forgets the bucket once its longest window has passed without hits (real time: alarms are
   * real). The alarm is moved at most once per window, not written on every hit.
   */
  private scheduleCleanup(windowMs: number): void {
    const due = Date.now() + windowMs;
    if (due - this.cleanupAt < windowMs / 2) return;
    this.cleanupAt = due;
    void this.ctx.storage.setAlarm(due);
  }

  private current(window: RateWindow, now: number): WindowState {
    const size = window.seconds * 1000;
    const start = Math.floor(now / size) * size;
    const stored = this.ctx.storage.kv.get<WindowState>(key(window));
    return stored && stored.start === start ? stored : { start, count: 0 };
  }
}

// Keyed by window length only, so a changed limit (a new tier) keeps the current count.
const key = (w: RateWindow) => `w${w.seconds}`;

function tightest(windows: RateWindow[], states: WindowState[]): number {
  let best = 0;
  states.forEach((s, i) => {
    if (windows[i].limit - s.count < windows[best].limit - states[best].count) best = i;
  });
  return best;
}
