// The two OpenAPI documents: one exact document per form, every example a body the schema accepts,
// and real answers that match what the documents declare (status, body, headers).
import { calculateJwkThumbprint } from "jose";
import { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { SCORE_EVENT_TYPES } from "../../src/domain/agent";
import { ERROR_CODES } from "../../src/domain/errors";
import { REASON_CODES } from "../../src/domain/model";
import type { Form } from "../../src/http/context";
import { DOCUMENT_PATHS, openApiDocument } from "../../src/routes/documents";
import { EXAMPLE_KEYS } from "../../src/routes/example-agent";
import { inForm } from "../../src/routes/openapi";
import { ADMIN, agentConfig, bearer, call, createOperator, freshIp, registerAgent, testApp } from "../helpers";

const FORMS = ["A", "B"] as const;
const METHODS = ["get", "post", "put", "patch", "delete"] as const;

type Json = Record<string, any>;
const documents = new Map<Form, Json>();
async function documentOf(form: Form): Promise<Json> {
  if (!documents.has(form)) documents.set(form, (await (await call(DOCUMENT_PATHS[form])).json()) as Json);
  return documents.get(form)!;
}

const operationsOf = (doc: Json) =>
  Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ path, method, operation: item[method] as Json })),
  );

const refsIn = (value: unknown): string[] =>
  typeof value !== "object" || value === null
    ? []
    : Object.entries(value).flatMap(([k, v]) => (k === "$ref" && typeof v === "string" ? [v] : refsIn(v)));

describe("the OpenAPI documents", () => {
  it("are served at /openapi.json (Form A) and /openapi-b.json (Form B), cacheable, with the serving origin as server", async () => {
    for (const form of FORMS) {
      const res = await call(DOCUMENT_PATHS[form]);
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toMatch(/^public, max-age=\d+$/);
      expect(res.headers.get("etag")).toBeTruthy();
      const doc = (await res.json()) as Json;
      expect(doc.openapi).toBe("3.1.0");
      expect(doc.info.title).toContain(`Form ${form}`);
      expect(doc.info.license.name).toBeTruthy();
      expect(doc.servers).toEqual([{ url: "http://trust.test", description: expect.any(String) }]);
    }
    expect(await (await call("/")).json()).toMatchObject({ openapi: "/openapi.json", openapi_b: "/openapi-b.json" });
  });

  it("give every operation a unique operationId, a tag with a description, security and a description", async () => {
    for (const form of FORMS) {
      const doc = await documentOf(form);
      const operations = operationsOf(doc);
      expect(operations.length).toBeGreaterThan(45);
      const ids = operations.map((o) => o.operation.operationId);
      expect(ids.every((id) => typeof id === "string" && /^[a-z][a-zA-Z0-9]*$/.test(id))).toBe(true);
      expect(new Set(ids).size).toBe(ids.length);
      const tags = new Map((doc.tags as Json[]).map((t) => [t.name, t.description]));
      for (const { path, method, operation } of operations) {
        const where = `${form} ${method} ${path}`;
        expect(operation.tags?.every((t: string) => tags.get(t)), where).toBe(true);
        expect(Array.isArray(operation.security), where).toBe(true);
        expect(operation.description, where).toBeTruthy();
      }
    }
  });

  it("describe public routes as public and keyed routes with the scope their middleware asks for", async () => {
    const ops = operationsOf(await documentOf("A"));
    const find = (method: string, path: string) => ops.find((o) => o.method === method && o.path === path)!.operation;
    expect(find("get", "/score/{sid}/public").security).toEqual([]);
    expect(find("post", "/apply").security).toEqual([]);
    expect(find("get", "/score/{sid}").security).toEqual([{ bearerAuth: [] }]);
    expect(find("get", "/score/{sid}").description).toContain("`agents:read`");
    expect(find("post", "/transactions").description).toContain("`transactions:write`");
    expect(find("get", "/admin/operators").security).toEqual([{ adminAuth: [] }]);
    expect(find("post", "/apply").description).toContain("5 requests per hour");
  });

  it("hold only their own form's payloads and error envelope", async () => {
    const a = await documentOf("A");
    const b = await documentOf("B");
    const namesA = Object.keys(a.components.schemas);
    const namesB = Object.keys(b.components.schemas);
    expect(namesA).toContain("ErrorA");
    expect(namesA.filter((n) => /B$/.test(n))).toEqual([]);
    expect(namesB).toContain("ErrorB");
    // Self-registration takes and answers Form A's payload in both forms (docs/decisions.md).
    expect(namesB.filter((n) => /A$/.test(n)).sort()).toEqual(["RegisterRequestA", "RegistrationA"]);
    expect(refsIn(b.paths["/register/self"])).toEqual(expect.arrayContaining(["#/components/schemas/RegistrationA"]));
    for (const doc of [a, b]) expect(JSON.stringify(doc)).not.toContain('"anyOf":[{"$ref":"#/components/schemas/Error');
  });

  it("ask Form B clients for API-Version: B on every operation but the badges (the agent's path answers JSON clients in their form)", async () => {
    for (const { path, operation } of operationsOf(await documentOf("B"))) {
      const version = (operation.parameters ?? []).find((p: Json) => p.name === "api-version");
      if (path.startsWith("/badge/")) expect(version, path).toBeUndefined();
      else expect(version, path).toMatchObject({ in: "header", required: true, schema: { enum: ["B"] } });
    }
  });

  it("name the domain's vocabularies as enums and timestamps as date-time", async () => {
    const a = (await documentOf("A")).components.schemas;
    const b = (await documentOf("B")).components.schemas;
    expect(a.ScoreA.properties.reasons.items.enum).toEqual([...REASON_CODES]);
    expect(a.ReportA.properties.score_history.items.properties.event_type.enum).toEqual([...SCORE_EVENT_TYPES]);
    expect(a.ReportA.properties.status.enum).toEqual(["active", "suspended"]);
    expect(a.ConfigUpdatedA.properties.change_type).toMatchObject({ enum: expect.arrayContaining(["model_swap", null]) });
    expect(b.ErrorB.properties.error.properties.code.enum).toEqual([...ERROR_CODES]);
    expect(a.ScoreA.properties.last_updated).toMatchObject({ type: "string", format: "date-time" });
    expect(b.Dispute.properties.respond_by).toMatchObject({ type: "string", format: "date-time" });
  });

  it("declare the headers answers carry", async () => {
    const doc = await documentOf("A");
    const headers = (method: string, path: string, status: number) => Object.keys(doc.paths[path][method].responses[status].headers ?? {});
    expect(headers("get", "/score/{sid}", 200)).toEqual(
      expect.arrayContaining(["X-Request-Id", "Cache-Control", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "X-D1-Bookmark"]),
    );
    expect(headers("get", "/score/{sid}", 401)).not.toContain("X-RateLimit-Limit");
    expect(headers("get", "/score/{sid}/public", 200)).toEqual(expect.arrayContaining(["ETag", "Access-Control-Allow-Origin", "Vary"]));
    expect(headers("get", "/score/{sid}/public", 429)).toContain("Retry-After");
    expect(headers("get", "/score/{sid}/public", 304)).toEqual(["Cache-Control", "ETag"]);
    expect(headers("get", "/health", 200)).not.toContain("X-D1-Bookmark");
    expect(doc.components.headers["X-D1-Bookmark"].required).toBe(false);
  });
});

describe("the documents' examples", () => {
  const app = testApp().app;
  const routes = app.openAPIRegistry.definitions.flatMap((d) => (d.type === "route" ? [d.route] : []));

  it("are bodies their schemas accept as they are, for every JSON response of every operation", async () => {
    let checked = 0;
    for (const form of FORMS) {
      const doc = await documentOf(form);
      for (const route of routes) {
        for (const [status, response] of Object.entries(doc.paths[route.path][route.method].responses as Json)) {
          const media = response.content?.["application/json"];
          if (!media) continue;
          const where = `${form} ${route.method} ${route.path} ${status}`;
          expect(media.example, where).toBeDefined();
          const declared = (route.responses[status] as Json | undefined)?.content["application/json"].schema;
          expect(declared, where).toBeInstanceOf(z.ZodType);
          const schema = inForm(declared, form);
          // Parsing drops unknown keys, so an example with a field the schema lacks comes out different.
          expect(schema.parse(media.example), where).toEqual(media.example);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(400);
  });

  it("say memoryConfig and metadata may be null, as the service accepts null for them", async () => {
    for (const form of FORMS) {
      const schemas = (await documentOf(form)).components.schemas as Json;
      for (const [schema, field] of [["RegisterRequestA", "memoryConfig"], ["ConfigRequest", "memoryConfig"], ["TransactionRequest", "metadata"]]) {
        expect(schemas[schema].properties[field].type, `${form} ${schema}.${field}`).toEqual(["object", "null"]);
      }
    }
    const { key } = await createOperator();
    const registered = await call("/register", { headers: bearer(key), body: { name: "No memory", ...agentConfig, memoryConfig: null } });
    expect(registered.status).toBe(201);
    const { sid } = (await registered.json()) as { sid: string };
    const config = await call(`/agents/${sid}/config`, { headers: bearer(key), body: { ...agentConfig, memoryConfig: null } });
    expect(config.status).toBe(200);
    expect(((await config.json()) as { change_detected: boolean }).change_detected).toBe(false);
    const self = await call("/register/self", { headers: { "cf-connecting-ip": freshIp() }, body: { name: "No memory", ...agentConfig, memoryConfig: null } });
    expect(self.status).toBe(201);
    const report = await call("/transactions", { headers: bearer(key), body: { sid, transactionType: "t", outcome: "success", metadata: null } });
    expect(report.status).toBe(201);
  });

  it("name Ed25519 keys by their real RFC 7638 thumbprints", async () => {
    for (const key of Object.values(EXAMPLE_KEYS)) expect(await calculateJwkThumbprint(key.jwk, "sha256")).toBe(key.thumbprint);
  });

  it("build the same document every time (the generated client is diffed against it)", () => {
    const definitions = app.openAPIRegistry.definitions;
    expect(JSON.stringify(openApiDocument(definitions, "A"))).toBe(JSON.stringify(openApiDocument(definitions, "A")));
  });
});

/** The operation and response the document declares for a real answer. */
function declared(doc: Json, method: string, path: string, status: number) {
  const template = Object.keys(doc.paths).find((p) => {
    const pattern = new RegExp(`^${p.replace(/[.]/g, "\\.").replace(/\{[^}]+\}/g, "[^/]+")}$`);
    return pattern.test(path) && doc.paths[p][method];
  });
  expect(template, `${method} ${path}: no operation`).toBeDefined();
  const response = doc.paths[template!][method].responses[status];
  expect(response, `${method} ${path}: ${status} is not declared`).toBeDefined();
  return response as Json;
}

/** Checks a real answer against the document of its form: declared status, required headers present. */
async function conforms(form: Form, method: string, path: string, res: Response) {
  const doc = await documentOf(form);
  const response = declared(doc, method, new URL(path, "http://x").pathname, res.status);
  for (const [name, header] of Object.entries((response.headers ?? {}) as Json)) {
    const component = header.$ref ? doc.components.headers[header.$ref.split("/").pop()] : header;
    if (component.required) expect(res.headers.get(name), `${form} ${method} ${path} ${res.status}: ${name}`).not.toBeNull();
  }
  return res;
}

describe("real answers", () => {
  it("carry the headers the documents declare, in both forms", async () => {
    const owner = await createOperator();
    const { sid } = await registerAgent(owner.key);
    for (const form of FORMS) {
      const version = { "api-version": form };
      const get = async (path: string, headers: Record<string, string> = {}) =>
        conforms(form, "get", path, await call(path, { headers: { ...version, ...headers } }));
      expect((await get(`/score/${sid}`, bearer(owner.key))).status).toBe(200);
      expect((await get(`/report/${sid}`, bearer(owner.key))).status).toBe(200);
      expect((await get(`/score/${sid}`)).status).toBe(401);
      expect((await get(`/score/SID-0x0000000000000000`, bearer(owner.key))).status).toBe(404);
      const ip = { "cf-connecting-ip": freshIp() };
      const first = await get(`/score/${sid}/public`, ip);
      expect(first.status).toBe(200);
      const again = await get(`/score/${sid}/public`, { ...ip, "if-none-match": first.headers.get("etag")! });
      expect(again.status).toBe(304);
      // The 304 was free: four more bodies use up the hour's five.
      for (let i = 0; i < 4; i++) await get(`/score/${sid}/public`, ip);
      expect((await get(`/score/${sid}/public`, ip)).status).toBe(429);
      expect((await get("/.well-known/jwks.json")).status).toBe(200);
      expect((await get("/admin/operators", ADMIN)).status).toBe(200);
      const reported = await call("/transactions", {
        headers: { ...version, ...bearer(owner.key) },
        body: { sid, transactionType: "task_completion", outcome: "success" },
      });
      expect((await conforms(form, "post", "/transactions", reported)).status).toBe(201);
      const invalid = await call("/transactions", { headers: { ...version, ...bearer(owner.key) }, body: { sid } });
      expect((await conforms(form, "post", "/transactions", invalid)).status).toBe(400);
      const config = await call(`/agents/${sid}/config`, { headers: { ...version, ...bearer(owner.key) }, body: agentConfig });
      expect((await conforms(form, "post", `/agents/${sid}/config`, config)).status).toBe(200);
    }
  });
});
