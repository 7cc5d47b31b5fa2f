// API key payloads (the same in both forms: only Form B describes keys, and both forms share them).
import { z } from "@hono/zod-openapi";
import { parseScopes, SCOPES } from "../../domain/scopes";
import { apiKey, timestamp } from "./common";

const key = z
  .object({
    id: z.number().int(),
    prefix: z
      .string()
      .regex(/^[0-9a-f]{8}$/)
      .openapi({ description: "The first 8 hex characters of the key" }),
    scopes: z.array(z.enum(SCOPES)),
    status: z.enum(["active", "expiring", "expired", "revoked"]),
    created_at: timestamp,
    expires_at: timestamp.nullable().openapi({ description: "The end of a rotated key's 24-hour grace period" }),
    revoked_at: timestamp.nullable(),
  })
  .openapi("ApiKey");
const issued = key.extend({ api_key: apiKey.openapi({ description: "Shown only this once" }) }).openapi("IssuedApiKey");

interface KeyRow {
  id: number;
  prefix: string;
  scopes: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

function view(k: KeyRow, now: number): z.infer<typeof key> {
  const status = k.revokedAt ? "revoked" : k.expiresAt ? (Date.parse(k.expiresAt) <= now ? "expired" : "expiring") : "active";
  return {
    id: k.id,
    prefix: k.prefix,
    scopes: parseScopes(k.scopes),
    status,
    created_at: k.createdAt,
    expires_at: k.expiresAt,
    revoked_at: k.revokedAt,
  };
}

export const keys = {
  schemas: { key, issued },
  key: view,
  issued: (k: KeyRow, now: number, secret: string): z.infer<typeof issued> => ({ ...view(k, now), api_key: secret }),
};
