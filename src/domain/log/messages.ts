// The trust-log queue's messages: leaves from agents' objects for log `log`'s sequencer. One
// message may carry many leaves (of one agent's outbox, or of several agents of the same log).

import type { Leaf } from "./leaf";

export interface LogMessage {
  log: number;
  leaves: { sid: string; leaf: Leaf }[];
}

/** The name of log n's sequencer object. */
export const sequencerName = (n: number) => `log:${n}`;
