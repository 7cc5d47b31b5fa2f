// The admin routes the CLI's listing and revocation commands use: operators, an operator's keys,
// revoking one of them, the waitlist.
import { describe, expect, it } from "vitest";
import { ADMIN, bearer, call, createOperator, freshIp } from "../helpers";

type Page<K extends string, T> = Record<K, T[]> & { next_cursor: string | null };

/** Every item of an admin list, following next_cursor with pages of `limit`. */
async function everything<K extends string, T>(path: string, key: K, limit: number): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await call(`${path}?limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`, { headers: ADMIN });
    expect(res.status).toBe(200);
    const page = (await res.json()) as Page<K, T>;
    items.push(...page[key]);
    cursor = page.next_cursor;
    pages++;
  } while (cursor);
  return { items, pages };
}

describe("GET /admin/operators", () => {
  it("lists every operator once, oldest first, page by page", async () => {
    const created = [await createOperator({ name: "First Ops" }), await createOperator({ name: "Second Ops", verified: true }), await createOperator()];
    const { items, pages } = await everything<"operators", { id: number; name: string; email: string; verified: boolean; tier: string }>("/admin/operators", "operators", 2);
    expect(pages).toBeGreaterThanOrEqual(2);
    const ids = items.map((o) => o.id);
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    expect(new Set(ids).size).toBe(ids.length);
    expect(items.find((o) => o.id === created[1].id)).toEqual({
      id: created[1].id,
      name: "Second Ops",
      email: created[1].email,
      tier: "free",
      verified: true,
      rate_limit_per_minute: null,
      rate_limit_per_day: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(ids).toEqual(expect.arrayContaining(created.map((o) => o.id)));
  });

  it("refuses a bad page size or cursor, and any caller without the admin token", async () => {
    expect((await call("/admin/operators?limit=0", { headers: ADMIN })).status).toBe(400);
    expect(await (await call("/admin/operators?cursor=nonsense!", { headers: ADMIN })).json()).toMatchObject({ error: "Invalid cursor" });
    const { key } = await createOperator();
    for (const headers of [{}, bearer(key)]) expect((await call("/admin/operators", { headers })).status).toBe(401);
  });
});

describe("an operator's keys", () => {
  it("are listed by prefix for the admin, never the keys themselves", async () => {
    const op = await createOperator();
    const res = await call(`/admin/operators/${op.id}/keys`, { headers: ADMIN });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { keys: Record<string, unknown>[]; next_cursor: null };
    expect(body.keys).toEqual([expect.objectContaining({ prefix: op.key.slice(7, 15), status: "active" })]);
    expect(JSON.stringify(body)).not.toContain(op.key);
    expect(await (await call("/admin/operators/999999/keys", { headers: ADMIN })).json()).toMatchObject({ error: "Operator not found" });
  });

  it("can be revoked one by one by an admin, the last one included, taking effect at once", async () => {
    const op = await createOperator();
    const second = (await (await call("/keys", { headers: bearer(op.key), body: { scopes: ["agents:read"] } })).json()) as { key: { id: number; api_key: string } };
    const { keys } = (await (await call(`/admin/operators/${op.id}/keys`, { headers: ADMIN })).json()) as { keys: { id: number; prefix: string }[] };
    const first = keys.find((k) => k.prefix === op.key.slice(7, 15))!;
    expect((await call("/me", { headers: bearer(op.key) })).status).toBe(200);

    const revoked = await call(`/admin/operators/${op.id}/keys/${first.id}`, { method: "DELETE", headers: ADMIN });
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toMatchObject({ operator_id: op.id, key: { id: first.id, status: "revoked" }, valid_keys: 1 });
    expect(await (await call("/me", { headers: bearer(op.key) })).json()).toMatchObject({ error: "Invalid API key" });

    const last = await call(`/admin/operators/${op.id}/keys/${second.key.id}`, { method: "DELETE", headers: ADMIN });
    expect(await last.json()).toMatchObject({ key: { id: second.key.id, status: "revoked" }, valid_keys: 0 });
    expect((await call("/me", { headers: bearer(second.key.api_key) })).status).toBe(401);
  });

  it("refuses a key revoked already, a key of another operator, and malformed ids", async () => {
    const op = await createOperator();
    const other = await createOperator();
    const { keys } = (await (await call(`/admin/operators/${op.id}/keys`, { headers: ADMIN })).json()) as { keys: { id: number }[] };
    const path = `/admin/operators/${op.id}/keys/${keys[0].id}`;
    expect((await call(`/admin/operators/${other.id}/keys/${keys[0].id}`, { method: "DELETE", headers: ADMIN })).status).toBe(404);
    expect((await call(path, { method: "DELETE", headers: ADMIN })).status).toBe(200);
    const again = await call(path, { method: "DELETE", headers: ADMIN });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: "API key is already revoked" });
    expect(await (await call(`/admin/operators/${op.id}/keys/0x10`, { method: "DELETE", headers: ADMIN })).json()).toMatchObject({
      error: "keyId must be a positive decimal integer",
    });
    // Past 2^53 a number would round to another key's id.
    const unsafe = await call(`/admin/operators/${op.id}/keys/9007199254740993`, { method: "DELETE", headers: ADMIN });
    expect(unsafe.status).toBe(400);
    expect(await unsafe.json()).toMatchObject({ error: "keyId must be a positive decimal integer" });
  });
});

describe("GET /admin/waitlist", () => {
  it("lists every address once, oldest first, with its role", async () => {
    const stamp = crypto.randomUUID().slice(0, 8);
    const emails = [`a-${stamp}@example.org`, `b-${stamp}@example.org`, `c-${stamp}@example.org`];
    for (const [i, email] of emails.entries()) {
      const res = await call("/waitlist", { headers: { "cf-connecting-ip": freshIp() }, body: { email, role: i === 0 ? "developer" : undefined } });
      expect(res.status).toBe(201);
    }
    const { items, pages } = await everything<"waitlist", { email: string; role: string | null; created_at: string }>("/admin/waitlist", "waitlist", 2);
    expect(pages).toBeGreaterThanOrEqual(2);
    const mine = items.filter((w) => w.email.endsWith(`-${stamp}@example.org`));
    expect(mine.map((w) => [w.email, w.role])).toEqual([
      [emails[0], "developer"],
      [emails[1], null],
      [emails[2], null],
    ]);
    expect(new Set(items.map((w) => w.email)).size).toBe(items.length);
  });
});
