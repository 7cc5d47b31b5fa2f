import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { enterAgent } from "../db/directory";
import { fingerprint, type AgentConfiguration } from "../domain/configuration";
import { newSid, newToken, sha256Hex } from "../domain/identifiers";
import type { Registration } from "../domain/views";
import type { AppEnv } from "../http/context";
import { authOf, requireKey } from "../http/auth";
import { forgetOperator, locate, agentOf } from "../http/agents";
import { listAgent } from "../http/status-lists";
import { whitewashOf } from "../http/whitewash";
import { NEW_AGENT } from "../domain/status-list";
import { logCount, placementShards } from "../env";
import { idempotent } from "../http/idempotency";
import { settle } from "../http/agent-result";
import { publicLimit } from "../http/rate-limit";
import { formBody } from "../http/form";
import { wire } from "../http/wire";
import { errors, refusalError } from "../domain/errors";
import { sid } from "../http/wire/common";
import { configSchema, formA, schemas as a } from "../http/wire/form-a";
import { configSchemaB, schemas as b } from "../http/wire/form-b";
import { idempotencyHeader, nullableJsonObject, optionalString, requiredString, sidParam } from "./fields";
import { sample } from "./examples";
import { bearer, byForm, createRoute, errorResponses, json, jsonBody, publicAccess } from "./openapi";

const CLAIMED = "Agent claimed: you are now its operator";

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
  memoryConfig: nullableJsonObject("memoryConfig", 8192, "The agent's memory configuration, any JSON object; null or missing: no memory"),
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
  operationId: "registerAgent",
  tags: ["Agents"],
  summary: "Register an agent owned by the calling operator; it starts at 500",
  security: bearer,
  middleware: [requireKey("agents:write"), formBody({ A: registerA, B: registerB })],
  request: { body: jsonBody(byForm({ A: registerA, B: registerB })) },
  responses: {
    201: json(byForm({ A: a.registration, B: b.registration }), "Registered"),
    ...errorResponses(errors.missingFields(["name", "modelProvider", "modelName"]), 401, 403, 413, 429),
  },
});

const selfRegistration = createRoute({
  method: "post",
  path: "/register/self",
  operationId: "selfRegisterAgent",
  tags: ["Agents"],
  summary: "Self-register an agent no operator owns yet; the answer carries a one-time claim_token",
  description: "Form A's registration payload in either form. Owner-only routes answer 403 until an operator claims the agent.",
  security: publicAccess,
  middleware: [publicLimit("selfRegister")],
  request: { body: jsonBody(registerA) },
  responses: {
    201: json(a.registration, "Registered, unowned until claimed", sample.selfRegistration),
    ...errorResponses(errors.missingFields(["name", "modelProvider", "modelName"]), 413, 429),
  },
});

const claim = createRoute({
  method: "post",
  path: "/agents/{sid}/claim",
  operationId: "claimAgent",
  tags: ["Agents"],
  summary: "Take ownership of a self-registered agent with its claim_token",
  security: bearer,
  middleware: [requireKey("agents:write")],
  request: {
    params: sidParam,
    body: jsonBody(
      z.object({
        claim_token: z.string({ error: "claim_token is required" }).min(1, "claim_token is required").max(128, "Invalid claim token"),
      }),
    ),
  },
  responses: {
    200: json(z.object({ sid, message: z.string() }), "Claimed", { sid: sample.selfRegistration.sid, message: CLAIMED }),
    ...errorResponses(refusalError("invalid_claim_token"), 401, 403, 404, refusalError("already_claimed"), 429),
  },
});

const configUpdate = createRoute({
  method: "post",
  path: "/agents/{sid}/config",
  operationId: "updateAgentConfig",
  tags: ["Agents"],
  summary: "Report the agent's current configuration; a change decays earned scores in proportion (owner)",
  description: "Idempotent with `Idempotency-Key` (kept 24 hours per operator and agent): a repeat replays the first answer.",
  security: bearer,
  middleware: [requireKey("agents:write")],
  request: {
    params: sidParam,
    headers: idempotencyHeader,
    body: jsonBody(configBody),
  },
  responses: {
    200: json(byForm({ A: configSchema, B: configSchemaB }), "Configuration compared and stored"),
    ...errorResponses(400, 401, errors.notOwner(), 404, 413, 422, 429),
  },
});

/**
 * Each isolate deals new agents to the placement shards in turn, from a random first one: evenly
 * within an isolate, and isolates starting at random places keep the whole even too (random draws
 * alone left 100 agents split 58/42 over two shards).
 */
let nextPlacement: number | undefined; // random values are not allowed at global scope: drawn at first use

/**
 * Registers an agent: a shard is chosen (the next placement shard in turn) and entered in the
 * control database's directory with the agent's number and its place in the status lists, then the
 * agent's object creates it.
 */
async function createAgent(c: Context<AppEnv>, input: { name: string; description: string | null; config: AgentConfiguration }, operatorId: number | null) {
  const now = c.get("deps").now();
  const claimToken = operatorId === null ? newToken() : undefined;
  const sid = newSid();
  const placement = placementShards(c.env);
  nextPlacement ??= crypto.getRandomValues(new Uint32Array(1))[0];
  const shard = placement[nextPlacement++ % placement.length];
  const log = crypto.getRandomValues(new Uint32Array(1))[0] % logCount(c.env);
  // Its place in the status lists, drawn before it exists anywhere else: what a new agent is.
  const place = await listAgent(c, sid, NEW_AGENT);
  const entry = await enterAgent(c.get("db"), {
    sid,
    shard,
    log,
    operatorId,
    createdAt: new Date(now).toISOString(),
    statusList: place?.list,
    statusIdx: place?.idx,
  });
  const ref = { sid, num: entry.num, shard, log };
  const print = await fingerprint(input.config);
  const whitewash = await whitewashOf(c, print, operatorId, now);
  const out = await agentOf(c, ref).register(ref, {
    operatorId,
    name: input.name,
    description: input.description,
    config: input.config,
    fingerprint: print,
    inheritance: whitewash.inheritance,
    similarToCautioned: whitewash.similarToCautioned,
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
    const out = await agentOf(c, ref).claim(ref, { operatorId, claimTokenHash: await sha256Hex(c.req.valid("json").claim_token), now: c.get("deps").now() });
    settle(c, sid, out);
    forgetOperator(operatorId);
    return c.json({ sid, message: CLAIMED }, 200);
  });

  app.openapi(configUpdate, async (c) => {
    const { sid } = c.req.valid("param");
    const body = c.req.valid("json");
    const auth = authOf(c);
    // The agent's object checks that the agent exists and that the caller owns it.
    const config = configurationOfA(body);
    const print = await fingerprint(config);
    const ref = await locate(c, sid);
    const out = await idempotent(c, { sid, ...body }, (idempotency) =>
      agentOf(c, ref).updateConfig(ref, { callerId: auth.operatorId, now: c.get("deps").now(), idempotency, config, fingerprint: print }),
    );
    return c.json(wire(c).config(settle(c, sid, out)), 200);
  });
}
