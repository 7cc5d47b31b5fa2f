// The agent's chained history for its owner (GET /agents/{sid}/entries): each entry's canonical JSON
// exactly as its hash covers it, its hash, the composite its leaf commits to, and the clear text its
// salted hashes open. One form: the entries are the chain's own bytes, the same under API-Version B.
import { z } from "@hono/zod-openapi";
import type { StoredEntry } from "../../db/history";
import { ENTRY_KINDS } from "../../domain/entries";
import { nextCursor } from "./common";

const HEX64 = z.string().regex(/^[0-9a-f]{64}$/);

export const entryListSchema = z
  .object({
    sid: z.string(),
    log: z
      .object({
        log: z.number().int().min(0).openapi({ description: "The agent's log: its leaves are read under /log/{log}/" }),
        origin: z.string().openapi({ description: "The log's origin (its checkpoints' first line)" }),
        agent: HEX64.openapi({
          description:
            "The agent's constant name under the log key, HMAC-SHA256(log key, sid), lowercase hex: the `agent` of its leaves written before its cut-over. Later leaves are tagged per entry: GET /agents/{sid}/log-keys gives their keys",
        }),
      })
      .openapi({ description: "Where the agent's leaves are" }),
    entries: z.array(
      z.object({
        n: z
          .number()
          .int()
          .min(1)
          .openapi({ description: "The entry's number: 1, 2, 3, … with no gap (its leaf's tag is HMAC-SHA256(k, `<n>`); a leaf of before shows it as `seq`)" }),
        kind: z.enum(ENTRY_KINDS),
        entry: z
          .string()
          .openapi({ description: "The entry's RFC 8785 canonical JSON, byte for byte what `hash` covers (parse it, never re-serialise it to hash)" }),
        hash: HEX64.openapi({
          description: "Lowercase hex SHA-256 of `entry`: the next entry's `prev`, committed to by its leaf (`entry_hash` in a leaf of before)",
        }),
        score: z.number().nullable().openapi({
          description:
            "The composite its leaf commits to: the leaf's `commit` is SHA-256 of `<n>:<hash>:<score>:<entry's nonce>` (a leaf of before: `score_commit` is SHA-256 of `<score>:<entry's nonce>`). Null for an entry written before the service kept it (its entry's own score, where it has one, is the same)",
        }),
        opening: z.record(z.string(), z.unknown()).nullable().openapi({
          description:
            "The clear text of the entry's salted hashes, with their `salt` (a report: `type`, `metadata`; the registration: `name`, `description`): each hash is SHA-256 of `<salt>:<field>:<text>` (metadata as JSON). Null when the entry has none, or once the salt was erased",
        }),
      }),
    ),
    next_cursor: nextCursor,
  })
  .openapi("EntryList");

export type EntryList = z.infer<typeof entryListSchema>;

/** The composite an entry shows itself (entries that moved the score carry it), for rows from before the column. */
const faceOf = (e: StoredEntry): number | null => (e.entry as { score?: { composite?: number } }).score?.composite ?? null;

/** The opening of an entry's salted hashes, from what its row keeps beside it. */
function openingOf(e: StoredEntry): Record<string, unknown> | null {
  if (e.salt === null || e.private === null) return null;
  return { salt: e.salt, ...e.private };
}

export const entryList = (sid: string, log: EntryList["log"], entries: StoredEntry[], next: string | null): EntryList => ({
  sid,
  log,
  entries: entries.map((e) => ({ n: e.n, kind: e.kind, entry: e.text, hash: e.hash, score: e.composite ?? faceOf(e), opening: openingOf(e) })),
  next_cursor: next,
});
