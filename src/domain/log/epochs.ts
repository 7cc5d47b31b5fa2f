// Which leaf format, and which key, each of an agent's entries is logged under. Entries up to
// `cutover` keep the leaf of before (the agent's constant tag: set once, by the migration sweep, to
// the agent's last entry then; 0 for an agent registered since). After it, an entry's leaf is tagged
// with the key of the owner epoch it falls in: epoch i starts at entry `epochs[i].from` and lasts
// until the next starts. An epoch begins at each change of owner (a claim), so an owner's keys find
// the leaves of its time and no others.

export interface LogEpoch {
  /** The first entry number of the epoch. */
  from: number;
  /** The operator that owned the agent during it (null: self-registered, unclaimed). */
  owner: number | null;
}

export interface LogTags {
  cutover: number;
  epochs: LogEpoch[];
}

/** A new agent's: every entry tagged, epoch 0 from its registration. */
export const newLogTags = (owner: number | null): LogTags => ({ cutover: 0, epochs: [{ from: 1, owner }] });

/** An agent swept at entry `seq`: its later entries tagged, epoch 0 from the next. */
export const sweptLogTags = (seq: number, owner: number | null): LogTags => ({ cutover: seq, epochs: [{ from: seq + 1, owner }] });

/** A change of owner with entry `from`: a new epoch starts there (nothing changes before the sweep). */
export const withOwner = (tags: LogTags | undefined, from: number, owner: number | null): LogTags | undefined =>
  tags && { ...tags, epochs: [...tags.epochs, { from, owner }] };

/** The epoch entry `n` is tagged under; null when its leaf is of the format before (no tags yet, or at or before the cut-over). */
export function epochOf(tags: LogTags | undefined, n: number): number | null {
  if (!tags || n <= tags.cutover) return null;
  let epoch = 0;
  tags.epochs.forEach((e, i) => {
    if (e.from <= n) epoch = i;
  });
  return epoch;
}

/** The entry numbers each epoch covers (`to`: null for the current one). */
export const epochRanges = (tags: LogTags): { epoch: number; from: number; to: number | null; owner: number | null }[] =>
  tags.epochs.map((e, i) => ({ epoch: i, from: e.from, to: i + 1 < tags.epochs.length ? tags.epochs[i + 1].from - 1 : null, owner: e.owner }));
