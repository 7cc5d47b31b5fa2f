// Named timers over the object's one alarm. Each feature names when it next needs the object (an
// unsent outbox entry, a dispute's deadline, the moment time alone changes the agent's face) as a
// pure function of the agent's record; the alarm runs the due ones and is set to the earliest next.
// Nothing about a timer is stored: the record on the shard says when each is due. The alarm is moved
// only when it must fire earlier (a storage write each time).

import type { Loaded } from "../../db/agent-record";

export interface Timer {
  readonly name: string;
  /** When it is next due for this record (null: not). */
  next(loaded: Loaded, now: number): number | null;
  /** Its work when due. */
  fire(loaded: Loaded, now: number): Promise<void>;
}

export class Timers {
  /** The alarm as set (undefined: not read in this object life; null: none). */
  private at: number | null | undefined;
  private timers: readonly Timer[] = [];

  constructor(private readonly storage: DurableObjectStorage) {}

  register(timers: readonly Timer[]): void {
    this.timers = timers;
  }

  private async current(): Promise<number | null> {
    if (this.at === undefined) this.at = await this.storage.getAlarm();
    return this.at;
  }

  /** Moves the alarm to `at` when it is due later than that (or not at all). */
  async earlier(at: number): Promise<void> {
    const current = await this.current();
    if (current !== null && current <= at) return;
    this.at = at;
    await this.storage.setAlarm(at);
  }

  /** The earliest next time of any timer. */
  next(loaded: Loaded, now: number): number | null {
    let earliest: number | null = null;
    for (const t of this.timers) {
      const at = t.next(loaded, now);
      if (at !== null && (earliest === null || at < earliest)) earliest = at;
    }
    return earliest;
  }

  /** The alarm fired: each due timer runs (in order), then the alarm is set to the earliest next time. */
  async fire(load: () => Promise<Loaded | null>, now: number): Promise<string[]> {
    this.at = null;
    const ran: string[] = [];
    for (const t of this.timers) {
      const loaded = await load();
      if (!loaded) return ran;
      const at = t.next(loaded, now);
      if (at !== null && at <= now) {
        await t.fire(loaded, now);
        ran.push(t.name);
      }
    }
    const loaded = await load();
    const next = loaded && this.next(loaded, now);
    if (next != null) await this.earlier(Math.max(next, now + 1000));
    return ran;
  }
}
