import { DurableObject } from "cloudflare:workers";

export interface RateWindow {
  limit: number;
  seconds: number;
}

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
}

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
  hit(windows: RateWindow[], now: number): RateDecision {
    const states = windows.map((w) => this.current(w, now));
    const refused = states.findIndex((s, i) => s.count >= windows[i].limit);
    const allowed = refused === -1;
    if (allowed) {
      states.forEach((s, i) => {
        s.count += 1;
        this.ctx.storage.kv.put(key(windows[i]), s);
      });
    }
    const binding = allowed ? tightest(windows, states) : refused;
    const resetMs = states[binding].start + windows[binding].seconds * 1000;
    const remaining = Math.min(...states.map((s, i) => Math.max(0, windows[i].limit - s.count)));
    // Forget the bucket once its longest window has passed without hits (real time: alarms are real).
    void this.ctx.storage.setAlarm(Date.now() + Math.max(...windows.map((w) => w.seconds)) * 1000);
    return {
      allowed,
      limit: windows[0].limit,
      remaining,
      reset: Math.ceil(resetMs / 1000),
      retryAfter: allowed ? 0 : Math.max(1, Math.ceil((resetMs - now) / 1000)),
    };
  }

  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll();
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
