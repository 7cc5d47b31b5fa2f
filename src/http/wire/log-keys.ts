// The owner's keys to its agent's log leaves (GET /agents/{sid}/log-keys): with them, and only with
// them, the owner's monitor and `npm run verify` find every leaf of the agent in the public log. One
// form: the same payload under API-Version B.
import { z } from "@hono/zod-openapi";

const HEX64 = z.string().regex(/^[0-9a-f]{64}$/);

export const logKeysSchema = z
  .object({
    sid: z.string(),
    log: z
      .object({
        log: z.number().int().min(0).openapi({ description: "The agent's log: its leaves are read under /log/{log}/" }),
        origin: z.string().openapi({ description: "The log's origin (its checkpoints' first line)" }),
      })
      .openapi({ description: "Where the agent's leaves are" }),
    seq: z
      .number()
      .int()
      .min(0)
      .openapi({ description: "The agent's last entry number: its leaves are those of entries 1 … seq (the newest may not be sequenced yet)" }),
    agent: HEX64.openapi({
      description:
        "The agent's constant name under the log key, HMAC-SHA256(log key, sid): the `agent` of each of its leaves written before the cut-over (`{agent, seq, entry_hash, score_commit}`)",
    }),
    cutover: z.number().int().min(0).nullable().openapi({
      description:
        "Entries 1 … cutover have leaves of the format before; entries after it have tagged leaves `{tag, commit}`. 0 for an agent registered since; null until the migration sweep reached the agent (every leaf so far is of the format before)",
    }),
    epochs: z
      .array(
        z.object({
          epoch: z.number().int().min(0),
          from: z.number().int().min(1).openapi({ description: "The epoch's first entry number" }),
          to: z.number().int().min(1).nullable().openapi({ description: "Its last entry number; null for the current epoch" }),
          key: HEX64.openapi({
            description: "k = HMAC-SHA256(log key, `<sid>:<epoch>`), lowercase hex: entry n's leaf has tag = HMAC-SHA256(k, `<n>`) (n in decimal)",
          }),
        }),
      )
      .openapi({
        description:
          "The owner epochs after the cut-over that the caller owned (or nobody did: a self-registered agent before its claim), with their keys. A leaf's `commit` is SHA-256 of `<n>:<entry hash>:<score>:<nonce>`",
      }),
  })
  .openapi("OwnerLogKeys");

export type LogKeys = z.infer<typeof logKeysSchema>;
