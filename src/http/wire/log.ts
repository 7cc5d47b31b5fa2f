// The transparency log's one JSON payload: the logs and their note verifier keys (GET /log/keys).
// Checkpoints are signed notes (text/plain) and tiles bytes, as C2SP defines them.
import { z } from "@hono/zod-openapi";

export const EXAMPLE_ORIGIN = "trust.example.com/log/0";
/** A real verifier key and checkpoint of EXAMPLE_ORIGIN (a documented example seed; test/log/routes.test.ts verifies them). */
export const EXAMPLE_VERIFIER_KEY = "trust.example.com/log/0+0b0c4d90+AT2kMci2j5evZirzEFU9YX4tDi+jBb+POdduDPg3rBeP";
export const EXAMPLE_CHECKPOINT =
  "trust.example.com/log/0\n1234\ntWfAy7LoXCleat6TDluzSaS5vulInKp9a2ed1G6CpxE=\n\n— trust.example.com/log/0 CwxNkJ6EYpEN6KudJGMst+QVJzpnEw1oIW8rsGplb+D22D5KYd4H8u4CZk5+SnrtX7A1VPNOslG5n1PpfYWbNbGF6Q8=\n";

export const logKeysSchema = z
  .object({
    logs: z.array(
      z.object({
        log: z.number().int().min(0).openapi({ description: "The log's number n: its reads are under /log/{n}/" }),
        origin: z.string().openapi({ description: "The log's origin: the first line of its checkpoints and the name of its keys", example: EXAMPLE_ORIGIN }),
        verifier_keys: z.array(z.string()).openapi({
          description:
            "Every key that signs the log's checkpoints, as signed-note verifier keys (`<name>+<hex key ID>+<base64(0x01 || Ed25519 public key)>`, Go's note.NewVerifier)",
        }),
      }),
    ),
  })
  .openapi("LogKeys");

export type LogKeys = z.infer<typeof logKeysSchema>;
