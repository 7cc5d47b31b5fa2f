// One exact OpenAPI document per wire form, from the routes' own definitions: each form's payloads
// and error envelope only, the headers the middleware really sends, who may call each operation
// (read from the route's middleware), and an example for every JSON response.
import { publicOrigin } from "../env";
import { OpenApiGeneratorV31, type OpenAPIRegistry, type ResponseConfig, type RouteConfig, type ZodMediaTypeObject } from "@asteasolutions/zod-to-openapi";
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import { ApiError, errors, refusalError } from "../domain/errors";
import type { Access, AppEnv, Form } from "../http/context";
import { ignoresForm } from "../http/form";
import { isPublicRead } from "../http/public-reads";
import { formA } from "../http/wire/form-a";
import { formB } from "../http/wire/form-b";
import { SERVICE_VERSION } from "../version";
import { EXAMPLE_REQUEST_ID } from "./example-agent";
import { exampleOf } from "./examples";
import { accessOf, errorEnvelope, inForm } from "./openapi";

type OpenAPIDefinitions = OpenAPIRegistry["definitions"][number];

export const DOCUMENT_PATHS: Record<Form, string> = { A: "/openapi.json", B: "/openapi-b.json" };

const TAGS = [
  { name: "Service", description: "Liveness and the running version." },
  { name: "Operators", description: "Operator accounts: applying for one, and the calling operator's profile." },
  { name: "Agents", description: "Registering agents, claiming self-registered ones, and reporting their configuration." },
  { name: "Scores", description: "Agents' scores and reports, and signed attestations a relying party verifies offline." },
  { name: "Transactions", description: "Transaction outcomes: the evidence scores are made from." },
  { name: "Verification", description: "Identity level 1: a challenge delivered to the agent's HTTPS callback." },
  { name: "Identity", description: "Identity level 2: the agent's Ed25519 keys and its HTTP Message Signature proof." },
  { name: "Offline trust", description: "Status lists and selective-disclosure credentials (SD-JWT VC): agents checked offline, privately." },
  { name: "Keys", description: "The operator's API keys: rotation, narrower keys, revocation." },
  { name: "Notifications", description: "Webhooks (Standard Webhooks signatures) and watches of other operators' agents." },
  { name: "Disputes", description: "An owner disputes a report; its reporter stands by it or withdraws it; admins decide the unanswered." },
  { name: "Waitlist", description: "Early access." },
  { name: "Badges", description: "Public trust badges for web pages (they ignore API-Version)." },
  { name: "Pages", description: "The agent's public page, for people: HTML for a browser (it ignores API-Version)." },
  {
    name: "Integrations",
    description: "Where agents are: an MCP server whose tools mirror the routes, an A2A Agent Card extension, and an AI Catalog attestation.",
  },
  { name: "Transparency log", description: "The transparency log of agents' histories: checkpoints and tiles (C2SP tlog-tiles), read by any client." },
  { name: "Admin", description: "The service operators' interface, behind the ADMIN_TOKEN secret." },
];

const INFO: Record<Form, { title: string; lead: string }> = {
  A: {
    title: "Agent Trust Scoring Service (Form A)",
    lead:
      "Trust profiles and scores for autonomous software agents, in Form A: the default wire format, with " +
      "`{error, request_id}` errors. Form B, for clients that send `API-Version: B`, is described at `/openapi-b.json`.",
  },
  B: {
    title: "Agent Trust Scoring Service (Form B)",
    lead:
      "Trust profiles and scores for autonomous software agents, in Form B: every request sends `API-Version: B`, " +
      "scores carry `dimensions` on a 0.0-1.0 scale, and errors are `{error: {code, message}, request_id}`. " +
      "Routes only Form A describes answer as in Form A, with Form B's errors. Form A is described at `/openapi.json`.",
  },
};

const DESCRIPTION = [
  "**Keys and scopes.** `Authorization: Bearer sk_svc_...` (the scheme is case-insensitive). Each operation names the scope " +
    "it needs. A key in its 24-hour rotation grace keeps only `agents:read`, `agents:write`, `transactions:write` and " +
    "`verify:write`. Keys are shown once: e-mailed on approval and recovery, and returned by admin routes only where " +
    "RETURN_KEYS_IN_RESPONSES=true (local development).",
  "**Limits.** Keyed responses carry `X-RateLimit-Limit` (per minute), `X-RateLimit-Remaining` and `X-RateLimit-Reset`; " +
    "every 429 carries `Retry-After`. Public limits count an IPv6 client by its /64 network.",
  "**Requests.** Every response carries `X-Request-Id`, and error bodies repeat it as `request_id`. Lists page with `limit` " +
    "(1-200, default 50) and `cursor`, answering `next_cursor`. An undefined method on a known path is 405 with `Allow`. " +
    "Keyed reads without `X-D1-Bookmark` read the primary. Responses that wrote D1, or read it through a session, carry `X-D1-Bookmark`; " +
    "sending it back reads at least that new from the nearest replica.",
  "**Public reads** (public score, attestations, JWKS, status lists, badges) allow any origin (CORS), answer preflights with 204 and " +
    "`If-None-Match` with 304. Keyed routes send no CORS headers and `Cache-Control: no-store`.",
].join("\n\n");

/** Header components, referred to by every response that carries them; all but the bookmark always. */
const HEADERS: Record<string, { description: string; required?: boolean; schema: Record<string, unknown> }> = {
  "X-Request-Id": { description: "The request's id: the client's own X-Request-Id when it sent a sane one, else a new one", schema: { type: "string" } },
  "Cache-Control": { description: "`no-store`, except on public reads, which may be cached for their `max-age`", schema: { type: "string" } },
  "X-RateLimit-Limit": { description: "The operator's limit per minute", schema: { type: "integer" } },
  "X-RateLimit-Remaining": { description: "Requests left in the current minute (may be conservative)", schema: { type: "integer" } },
  "X-RateLimit-Reset": { description: "When the current minute's window resets, in Unix seconds", schema: { type: "integer" } },
  "Retry-After": { description: "Seconds to wait before trying again", schema: { type: "integer" } },
  ETag: { description: "The body's entity tag: send it as If-None-Match to get 304 while it is unchanged", schema: { type: "string" } },
  "Access-Control-Allow-Origin": { description: "Any page may read public reads", schema: { type: "string", enum: ["*"] } },
  "X-D1-Bookmark": {
    description:
      "The newest D1 bookmark of each database the request wrote or read through a session (`DB=...,SHARD_1=...`); send it back to read at least that new",
    required: false,
    schema: { type: "string" },
  },
};

/** Operations whose handlers touch no D1 session, so their answers never carry X-D1-Bookmark. */
const WITHOUT_D1 = new Set(["/health", "/.well-known/jwks.json", "/admin/d1-meter", "/log/keys", "/log/{log}/checkpoint", "/log/{log}/tile/{level}/{index}"]);

const apiVersion: Record<Form, z.ZodType> = {
  A: z
    .enum(["A"])
    .optional()
    .openapi({ param: { name: "api-version", in: "header" }, description: "Omit it, or send A: Form A payloads and errors" }),
  B: z.enum(["B"]).openapi({ param: { name: "api-version", in: "header" }, description: "B: Form B payloads and errors" }),
};
const ifNoneMatch = z
  .string()
  .optional()
  .openapi({ param: { name: "if-none-match", in: "header" }, description: "An ETag from an earlier answer: 304 while the body is unchanged" });

const WINDOWS: Record<number, string> = { 60: "minute", 3600: "hour", 86_400: "day" };

function accessNote(access: Access | null): string {
  if (!access) return "Public: no credential.";
  switch (access.kind) {
    case "key":
      if (access.orAgentSignature) return `Needs an API key with the \`${access.scope}\` scope, or, without a key, the agent's own signature (above).`;
      return access.scope ? `Needs an API key with the \`${access.scope}\` scope.` : "Needs any valid API key of the operator.";
    case "admin":
      return "Needs the admin token (ADMIN_TOKEN).";
    case "public":
      return `Public: no credential; ${access.limit.limit} requests per ${WINDOWS[access.limit.seconds] ?? `${access.limit.seconds} s`} per client address.`;
    case "optional-key":
      return "Public; an API key is optional, and what needs one is checked, scope and limit, as on the route it mirrors.";
  }
}

/** The security a route must declare for the access its middleware grants; a mismatch is a bug. */
function checkSecurity(route: RouteConfig, access: Access | null) {
  if (access?.kind === "optional-key") {
    if (JSON.stringify(route.security) === JSON.stringify([{}, { bearerAuth: [] }])) return;
    throw new Error(`${route.method.toUpperCase()} ${route.path}: an optional key is declared as security [{}, {bearerAuth: []}]`);
  }
  const declared = route.security?.flatMap((s) => Object.keys(s)) ?? null;
  const expected = access?.kind === "key" ? ["bearerAuth"] : access?.kind === "admin" ? ["adminAuth"] : [];
  if (declared === null || declared.join() !== expected.join()) {
    throw new Error(
      `${route.method.toUpperCase()} ${route.path}: security ${JSON.stringify(route.security)} does not match its middleware (${expected.join() || "public"})`,
    );
  }
}

/** A fitting example error for a bare status; routes give their own where no rule fits. */
function defaultError(route: RouteConfig, status: number, access: Access | null): ApiError {
  const sid = route.path.includes("{sid}");
  switch (status) {
    case 400:
      if (sid) return errors.invalidSid();
      if (route.request?.body) return errors.invalidJson();
      if (route.request?.query) return errors.badCursor();
      return errors.badApiVersion();
    case 401:
      if (access?.kind === "key") return errors.missingAuth();
      if (access?.kind === "admin") return errors.adminOnly();
      break;
    case 403:
      if (access?.kind === "key" && access.scope) return errors.insufficientScope(access.scope);
      if (access?.kind === "key" && sid) return errors.notOwner();
      break;
    case 404:
      if (sid) return errors.agentNotFound();
      break;
    case 413:
      return errors.bodyTooLarge();
    case 422:
      return refusalError("idempotency_mismatch");
    case 429:
      return errors.rateLimited(42);
    case 503:
      if (access?.kind === "admin") return errors.adminNotConfigured();
      break;
  }
  throw new Error(`${route.method.toUpperCase()} ${route.path}: the ${status} response needs an example (an ApiError in errorResponses)`);
}

/** The headers a response of this route and status really carries. */
function headersOf(route: RouteConfig, status: number, access: Access | null, own: ResponseConfig["headers"]) {
  // A 304 keeps only the validators and caching headers of the answer it stands for.
  const names = status === 304 ? ["Cache-Control"] : ["X-Request-Id", "Cache-Control"];
  const ok = status >= 200 && status < 300;
  const publicRead = isPublicRead(route.path.replace(/\{[^}]+\}/g, "x"));
  // The limit is counted once the key is known; later refusals carry its headers too.
  if (access?.kind === "key" && ![400, 401, 413].includes(status)) {
    names.push("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset");
  }
  if (status === 429) names.push("Retry-After");
  if (publicRead && status !== 304) names.push("Access-Control-Allow-Origin");
  if (publicRead && route.method === "get" && (status === 200 || status === 304)) names.push("ETag");
  if (ok && !WITHOUT_D1.has(route.path)) names.push("X-D1-Bookmark");
  const refs = Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
  return { ...refs, ...(own ?? {}) };
}

function responsesFor(route: RouteConfig, form: Form, access: Access | null): RouteConfig["responses"] {
  const out: Record<string, ResponseConfig> = {};
  for (const [code, response] of Object.entries(route.responses) as [string, ResponseConfig][]) {
    const status = Number(code);
    const content = Object.fromEntries(
      (Object.entries(response.content ?? {}) as [string, ZodMediaTypeObject][]).map(([type, media]) => {
        if (!(media.schema instanceof z.ZodType)) return [type, media];
        const schema = inForm(media.schema, form);
        let example: unknown = media.example ?? exampleOf(schema);
        if (media.schema === errorEnvelope) {
          const error = example instanceof ApiError ? example : defaultError(route, status, access);
          example = form === "B" ? formB.error(error, EXAMPLE_REQUEST_ID) : formA.error(error, EXAMPLE_REQUEST_ID);
        }
        return [type, { ...media, schema, ...(example === undefined ? {} : { example }) }];
      }),
    );
    out[code] = { ...response, headers: headersOf(route, status, access, response.headers), content };
  }
  if (route.method === "get" && isPublicRead(route.path.replace(/\{[^}]+\}/g, "x"))) {
    out[304] = { description: "Not modified: If-None-Match named the current ETag", headers: headersOf(route, 304, access, undefined) };
  }
  return out;
}

function routeFor(route: RouteConfig, form: Form): RouteConfig {
  const access = accessOf(route);
  checkSecurity(route, access);
  const headers = route.request?.headers instanceof z.ZodObject ? route.request.headers.shape : {};
  const publicGet = route.method === "get" && isPublicRead(route.path.replace(/\{[^}]+\}/g, "x"));
  const requestHeaders = z.object({
    ...headers,
    ...(ignoresForm(route.path) ? {} : { "api-version": apiVersion[form] }),
    ...(publicGet ? { "if-none-match": ifNoneMatch } : {}),
  });
  const body = route.request?.body;
  return {
    ...route,
    description: [route.description, accessNote(access)].filter(Boolean).join("\n\n"),
    request: {
      ...route.request,
      headers: Object.keys(requestHeaders.shape).length > 0 ? requestHeaders : undefined,
      body: body && {
        ...body,
        content: Object.fromEntries(
          Object.entries(body.content).map(([type, media]) => [
            type,
            media && "schema" in media && media.schema instanceof z.ZodType ? { ...media, schema: inForm(media.schema, form) } : media,
          ]),
        ),
      },
    },
    responses: responsesFor(route, form, access),
  };
}

const components: OpenAPIDefinitions[] = [
  {
    type: "component",
    componentType: "securitySchemes",
    name: "bearerAuth",
    component: { type: "http", scheme: "bearer", description: "An operator API key: sk_svc_ followed by 64 hex characters" },
  },
  {
    type: "component",
    componentType: "securitySchemes",
    name: "adminAuth",
    component: { type: "http", scheme: "bearer", description: "The ADMIN_TOKEN secret" },
  },
  ...Object.entries(HEADERS).map(([name, { required = true, ...rest }]): OpenAPIDefinitions => ({
    type: "component",
    componentType: "headers",
    name,
    component: { ...rest, required },
  })),
];

/** The document of one form, without `servers` (the serving origin adds its own). */
export function openApiDocument(definitions: readonly OpenAPIDefinitions[], form: Form) {
  const routes = definitions.flatMap((d): OpenAPIDefinitions[] => (d.type === "route" ? [{ type: "route", route: routeFor(d.route, form) }] : []));
  const used = new Set(routes.flatMap((d) => (d.type === "route" ? (d.route.tags ?? []) : [])));
  return new OpenApiGeneratorV31([...components, ...routes]).generateDocument({
    openapi: "3.1.0",
    info: {
      title: INFO[form].title,
      version: SERVICE_VERSION,
      description: `${INFO[form].lead}\n\n${DESCRIPTION}`,
      license: { name: "Proprietary: all rights reserved", identifier: "LicenseRef-Proprietary" },
    },
    tags: TAGS.filter((t) => used.has(t.name)),
  });
}

/** A document as served: with the service's public origin as its server. */
export function withServer(document: ReturnType<typeof openApiDocument>, origin: string) {
  const { openapi, info, ...rest } = document;
  return { openapi, info, servers: [{ url: origin, description: "The deployment that served this document" }], ...rest };
}

const DOCUMENT_MAX_AGE_S = 300;

/** GET /openapi.json (Form A) and GET /openapi-b.json (Form B), each built once per isolate. */
export function registerDocuments(app: OpenAPIHono<AppEnv>) {
  const built = new Map<Form, ReturnType<typeof openApiDocument>>();
  for (const form of ["A", "B"] as const) {
    app.get(DOCUMENT_PATHS[form], (c) => {
      let document = built.get(form);
      if (!document) built.set(form, (document = openApiDocument(app.openAPIRegistry.definitions, form)));
      return c.json(withServer(document, publicOrigin(c.env)), 200, { "Cache-Control": `public, max-age=${DOCUMENT_MAX_AGE_S}` });
    });
  }
}
