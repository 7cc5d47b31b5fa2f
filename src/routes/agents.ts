import { createRoute, z, type OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { enterAgent } from "../db/directory";
import { fingerprint, type AgentConfiguration } from "../domain/configuration";
import { newSid, newToken, sha256Hex } from "../domain/identifiers";
import type { Registration } from "../domain/views";
import type { AppEnv } from "../http/context";
import { authOf, requireKey } from "../http/auth";
import { forgetOperator, locate, scorerOf } from "../http/agents";
import { placementShards } from "../env";
import { idempotent } from "../http/idempotency";
import { settle } from "../http/agent-result";
import { publicLimit } from "../http/rate-limit";
import { formBody } from "../http/form";
import { wire } from "../http/wire";
import { configSchema, formA, schemas as a } from "../http/wire/form-a";
import { configSchemaB, schemas as b } from "../http/wire/form-b";
import { jsonObject, optionalString, requiredString, sidParam } from "./fields";
import { apiVersionHeader, bearer, errorResponses, json, jsonBody } from "./openapi";


const tools = (field: string) =>
  z
    .array(z.string({ error: `${field} must be an array of strings` }).max(200, `${field} entries must be at most 200 characters`), {
      error: `${field} must be an array of strings`,
    })
    .max(100, `${field} must have at most 100 entries`)
    .nullish()
    .transform((v) => v ?? []);

const configFields = {
  modelProvider: requiredString("modelProvider", 200),
  modelName: requiredString("modelName", 200),
  systemPromptHash: optionalString("systemPromptHash", 200),
  tools: tools("tools"),
  memoryConfig: jsonObject("memoryConfig", 8192)
    .nullish()
    .transform((v) => v ?? null),
};

export const registerA = z
  .object({ name: requiredString("name", 200), ...configFields, description: optionalString("description", 2000) })
  .openapi("RegisterRequestA");
export const registerB = z
  .object({
    name: requiredString("name", 200),
    description: optionalString("description", 2000),
    model: optionalString("model", 200),
    capabilities: tools("capabilities"),
  })
  .openapi("RegisterRequestB");
const configBody = z.object(configFields).openapi("ConfigRequest");

type RegisterA = z.infer<typeof registerA>;
type RegisterB = z.infer<typeof registerB>;

const configurationOfA = (body: RegisterA | z.infer<typeof configBody>): AgentConfiguration => ({
  modelProvider: body.modelProvider,
  modelName: body.modelName,
  systemPromptHash: body.systemPromptHash,
  tools: body.tools,
  memoryConfig: body.memoryConfig,
});

/** Form B names a model and capabilities; they map onto the one configuration model. */
const configurationOfB = (body: RegisterB): AgentConfiguration => ({
  modelProvider: "unspecified",
  modelName: body.model ?? "unspecified",
  systemPromptHash: null,
  tools: body.capabilities,
  memoryConfig: null,
});

const registration = createRoute({
  method: "post",
  path: "/register",
  tags: ["Agents"],
  summary: "Register an agent (Form A or Form B payload)",
  security: bearer,
  middleware: [requireKey("agents:write"), formBody({ A: registerA, B: registerB })],
  request: { headers: apiVersionHeader, body: jsonBody(z.union([registerA, registerB])) },
  responses: { 201: json(z.union([a.registration, b.registration]), "Registered"), ...errorResponses(400, 401, 403, 413, 429) },
});

const selfRegistration = createRoute({
  method: "post",
  path: "/register/self",
  tags: ["Agents"],
  summary: "Self-register an unowned agent (public, 5 per hour per IP); returns a one-time claim_token",
  middleware: [publicLimit("selfRegister")],
  request: { body: jsonBody(registerA) },
  responses: { 201: json(a.registration, "Registered, unowned until claimed"), ...errorResponses(400, 413, 429) },
});

const claim = createRoute({
  method: "post",
  path: "/agents/{sid}/claim",
  tags: ["Agents"],
  summary: "Take ownership of a self-registered agent with its claim_token",
  security: bearer,
  middleware: [requireKey("agents:write")],
  request: {
    params: sidParam,
    body: jsonBody(
      z.object({
        claim_token: z
          .string({ error: "claim_token is required" })
          .min(1, "claim_token is required")
          .max(128, "Invalid claim token"),
      }),
    ),
  },
  responses: { 200: json(z.object({ sid: z.string(), message: z.string() }), "Claimed"), ...errorResponses(400, 401, 403, 404, 409, 429) },
});

const configUpdate = createRoute({
  method: "post",
  path: "/agents/{sid}/config",
  tags: ["Agents"],
  summary: "Report the agent's current configuration; a change decays scores in proportion (owner)",
  security: bearer,
  middleware: [requireKey("agents:write")],
  request: {
    params: sidParam,
    headers: z.object({ "idempotency-key": z.string().optional().openapi({ param: { name: "idempotency-key", in: "header" } }) }),
    body: jsonBody(configBody),
  },
  responses: { 200: json(z.union([configSchema, configSchemaB]), "Configuration compared and stored (Form B: dimensions on 0.0-1.0)"), ...errorResponses(400, 401, 403, 404, 413, 422, 429) },
});

/**
 * Registers an agent: a shard is chosen (at random among the placement shards) and entered in the
 * control database's directory with the agent's number, then the agent's object creates it.
 */
async function createAgent(c: Context<AppEnv>, input: { name: string; description: string | null; config: AgentConfiguration }, operatorId: number | null) {
  const now = c.get("deps").now();
  const claimToken = operatorId === null ? newToken() : undefined;
  const sid = newSid();
  const placement = placementShards(c.env);
  const shard = placement[crypto.getRandomValues(new Uint32Array(1))[0] % placement.length];
  const entry = await enterAgent(c.get("db"), { sid, shard, operatorId, createdAt: new Date(now).toISOString() });
  const ref = { sid, num: entry.num, shard };
  const out = await scorerOf(c, ref).register(ref, {
    operatorId,
    name: input.name,
    description: input.description,
    config: input.config,
    fingerprint: await fingerprint(input.config),
    claimTokenHash: claimToken ? await sha256Hex(claimToken) : null,
    now,
  });
  const registered: Registration = { ...settle(c, sid, out), claimToken };
  return registered;
}

export function registerAgents(app: OpenAPIHono<AppEnv>) {
  app.openapi(registration, async (c) => {
    const form = c.get("form");
    const body = c.get("input") as RegisterA | RegisterB;
    const input =
      form === "B"
        ? { name: body.name, description: body.description, config: configurationOfB(body as RegisterB) }
        : { name: body.name, description: body.description, config: configurationOfA(body as RegisterA) };
    const registered = await createAgent(c, input, authOf(c).operatorId);
    return c.json(wire(c).registration(registered), 201);
  });

  app.openapi(selfRegistration, async (c) => {
    const body = c.req.valid("json");
    const registered = await createAgent(c, { name: body.name, description: body.description, config: configurationOfA(body) }, null);
    return c.json(formA.registration(registered), 201);
  });

  app.openapi(claim, async (c) => {
    const { sid } = c.req.valid("param");
    const ref = await locate(c, sid);
    const operatorId = authOf(c).operatorId;
    const out = await scorerOf(c, ref).claim(ref, { operatorId, claimTokenHash: await sha256Hex(c.req.valid("json").claim_token), now: c.get("deps").now() });
    settle(c, sid, out);
    forgetOperator(operatorId);
    return c.json({ sid, message: "Agent claimed: you are now its operator" }, 200);
  });

  app.openapi(configUpdate, async (c) => {
    const { sid } = c.req.valid("param");
    const body = c.req.valid("json");
    const auth = authOf(c);
    // The scorer checks that the agent exists and that the caller owns it.
    const config = configurationOfA(body);
    const print = await fingerprint(config);
    const ref = await locate(c, sid);
    const out = await idempotent(c, { sid, ...body }, (idempotency) =>
      scorerOf(c, ref).updateConfig(ref, { callerId: auth.operatorId, now: c.get("deps").now(), idempotency, config, fingerprint: print }),
    );
    return c.json(wire(c).config(settle(c, sid, out)), 200);
  });
}
