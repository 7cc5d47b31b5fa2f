// JSON nested far deeper than any configuration needs, small enough to pass the body limit: refused
// with the field's own 400 in both forms, never a 500 from a stack overflow on the way.
import { describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "../../src/routes/fields";
import { bearer, call, createOperator, freshIp, registerAgent } from "../helpers";

const LEVELS = 10_000;
/** An object holding arrays nested `levels` deep: `{"a":[[[...]]]}`, 20 KB at 10,000 levels. */
const deep = (levels: number) => `{"a":${"[".repeat(levels - 1)}${"]".repeat(levels - 1)}}`;
/** Nested exactly `levels` deep, counting the field's own object as the first level. */
const nested = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${"}".repeat(levels - 1)}`;

const tooDeep = (field: string) => `${field} must be nested at most ${MAX_JSON_DEPTH} levels deep`;

async function expectRefused(res: Response, form: "A" | "B", text: string) {
  expect(res.status).toBe(400);
  const body = await res.json();
  if (form === "A") expect(body).toEqual({ error: text, request_id: expect.any(String) });
  else expect(body).toEqual({ error: { code: "invalid_request", message: text }, request_id: expect.any(String) });
}

describe("deeply nested JSON", () => {
  it("is refused in memoryConfig by POST /register/self (no key needed), in both forms", async () => {
    for (const form of ["A", "B"] as const) {
      const body = `{"name":"Deep","modelProvider":"p","modelName":"m","memoryConfig":${deep(LEVELS)}}`;
      expect(body.length).toBeLessThan(64 * 1024);
      const res = await call("/register/self", { body, headers: { "cf-connecting-ip": freshIp(), "api-version": form } });
      await expectRefused(res, form, tooDeep("memoryConfig"));
    }
  });

  it("is refused in memoryConfig by POST /register and POST /agents/{sid}/config, in both forms", async () => {
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    const register = await call("/register", { headers: bearer(key), body: `{"name":"Deep","modelProvider":"p","modelName":"m","memoryConfig":${deep(LEVELS)}}` });
    await expectRefused(register, "A", tooDeep("memoryConfig"));
    for (const form of ["A", "B"] as const) {
      const res = await call(`/agents/${sid}/config`, { headers: bearer(key, { "api-version": form }), body: `{"modelProvider":"p","modelName":"m","memoryConfig":${deep(LEVELS)}}` });
      await expectRefused(res, form, tooDeep("memoryConfig"));
    }
  });

  it("is refused in metadata by POST /transactions, in both forms", async () => {
    const { key } = await createOperator();
    const { sid } = await registerAgent(key);
    for (const form of ["A", "B"] as const) {
      const res = await call("/transactions", { headers: bearer(key, { "api-version": form }), body: `{"sid":"${sid}","transactionType":"t","outcome":"success","metadata":${deep(LEVELS)}}` });
      await expectRefused(res, form, tooDeep("metadata"));
    }
  });

  it("is refused when the whole body is one deep array", async () => {
    const { key } = await createOperator();
    const body = `${"[".repeat(LEVELS)}${"]".repeat(LEVELS)}`;
    for (const form of ["A", "B"] as const) {
      await expectRefused(await call("/register/self", { body, headers: { "cf-connecting-ip": freshIp(), "api-version": form } }), form, "Request body must be a JSON object");
      await expectRefused(await call("/transactions", { headers: bearer(key, { "api-version": form }), body }), form, "Request body must be a JSON object");
    }
  });

  it("is accepted up to the limit, counting the field's own object as the first level, and refused one level deeper", async () => {
    const { key } = await createOperator();
    const atLimit = await call("/register", { headers: bearer(key), body: `{"name":"Deep","modelProvider":"p","modelName":"m","memoryConfig":${nested(MAX_JSON_DEPTH)}}` });
    expect(atLimit.status).toBe(201);
    const beyond = await call("/register", { headers: bearer(key), body: `{"name":"Deep","modelProvider":"p","modelName":"m","memoryConfig":${nested(MAX_JSON_DEPTH + 1)}}` });
    await expectRefused(beyond, "A", tooDeep("memoryConfig"));
    const { sid } = (await atLimit.json()) as { sid: string };
    const report = await call(`/transactions`, { headers: bearer(key), body: `{"sid":"${sid}","transactionType":"t","outcome":"success","metadata":${nested(MAX_JSON_DEPTH)}}` });
    expect(report.status).toBe(201);
  });
});
