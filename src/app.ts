import { OpenAPIHono } from "@hono/zod-openapi";
import { createDohResolver } from "./net/resolver";
import { errors } from "./domain/errors";
import { validateEnv, type AppEnv, type Deps } from "./env";
import { fromFramework, readBody, selectForm, validationHook } from "./http/request";
import { d1Session } from "./http/session";
import { renderError, toApiError } from "./http/wire";
import { registerAdmin } from "./routes/admin";
import { registerAgents } from "./routes/agents";
import { registerApplications } from "./routes/applications";
import { badgeFromCache, registerBadges } from "./routes/badges";
import { registerMe } from "./routes/me";
import { registerScores } from "./routes/scores";
import { registerTransactions } from "./routes/transactions";
import { registerVerification } from "./routes/verification";
import { registerKeys } from "./routes/keys";
import { registerWaitlist } from "./routes/waitlist";

const DEFAULT_DOH = "https://cloudflare-dns.com/dns-query";

/**
 * Builds the Worker's app. `deps` replaces the clock and the outbound calls (DNS-over-HTTPS and the
 * verification callback) in tests; production uses the real ones.
 */
export function createApp(deps: Partial<Deps> = {}) {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

  // Cached badges are answered before any other middleware: a hit needs none of it.
  app.use("/badge/*", badgeFromCache);
  // Built once per environment (the env object is stable within an isolate), not per request.
  const built = new WeakMap<object, Deps>();
  app.use("*", async (c, next) => {
    let resolved = built.get(c.env);
    if (!resolved) {
      validateEnv(c.env);
      const outbound: typeof fetch = (input, init) => fetch(input, init);
      resolved = {
        now: deps.now ?? Date.now,
        fetchCallback: deps.fetchCallback ?? outbound,
        resolve: deps.resolve ?? createDohResolver(c.env.DOH_ENDPOINT ?? DEFAULT_DOH, outbound),
      };
      built.set(c.env, resolved);
    }
    c.set("deps", resolved);
    await next();
  });
  app.use("*", selectForm);
  app.use("*", readBody);
  app.use("*", d1Session);

  registerApplications(app);
  registerAdmin(app);
  registerMe(app);
  registerAgents(app);
  registerScores(app);
  registerBadges(app);
  registerTransactions(app);
  registerVerification(app);
  registerKeys(app);
  registerWaitlist(app);

  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description: "An operator API key: sk_svc_ followed by 64 hex characters",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "adminAuth", {
    type: "http",
    scheme: "bearer",
    description: "The ADMIN_TOKEN secret",
  });
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: {
      title: "Agent Trust Scoring Service",
      version: "1.0.0",
      description:
        "Trust profiles and scores for autonomous software agents. Form A is the default wire format; " +
        "send `API-Version: B` for Form B payloads and the `{error: {code, message}}` envelope.",
    },
  });
  app.get("/", (c) => c.json({ service: "Agent Trust Scoring Service", docs: "/docs", openapi: "/openapi.json" }));

  app.notFound((c) => renderError(c, errors.notFound()));
  app.onError((err, c) => renderError(c, fromFramework(err) ?? toApiError(err)));
  return app;
}
