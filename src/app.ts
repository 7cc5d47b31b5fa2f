import { OpenAPIHono } from "@hono/zod-openapi";
import { methodNotAllowed } from "hono/method-not-allowed";
import { requestId } from "hono/request-id";
import { TrieRouter } from "hono/router/trie-router";
import { errors } from "./domain/errors";
import { dohEndpoint, publicOrigin } from "./env";
import { readBody } from "./http/body";
import type { AppEnv, Deps } from "./http/context";
import { selectForm } from "./http/form";
import { publicReads } from "./http/public-reads";
import { d1Session } from "./http/session";
import { fromFramework, validationHook } from "./http/validation";
import { renderError, toApiError } from "./http/wire";
import { loopbackWebhooks } from "./net/loopback";
import { createDohResolver } from "./net/resolver";
import { registerAdmin } from "./routes/admin";
import { registerAdminCredibility } from "./routes/admin-credibility";
import { registerAdminHistory } from "./routes/admin-history";
import { registerAdminMigrate, registerAdminReconcile } from "./routes/admin-migrate";
import { registerAdminOperators } from "./routes/admin-operators";
import { registerAgents } from "./routes/agents";
import { registerApplications } from "./routes/applications";
import { registerBadges } from "./routes/badges";
import { registerPublicPage } from "./routes/public-page";
import { badgeFromCache } from "./http/badge-cache";
import { registerHealth } from "./routes/health";
import { registerKeys } from "./routes/keys";
import { registerMe } from "./routes/me";
import { registerScores } from "./routes/scores";
import { registerTransactions } from "./routes/transactions";
import { registerBatch } from "./routes/batch";
import { registerVerification } from "./routes/verification";
import { registerIdentity } from "./routes/identity";
import { registerAttestations } from "./routes/attestations";
import { registerStatusLists } from "./routes/status-lists";
import { registerCredentials } from "./routes/credentials";
import { registerWebhooks } from "./routes/webhooks";
import { registerDisputes } from "./routes/disputes";
import { registerWaitlist } from "./routes/waitlist";
import { registerLog } from "./routes/log";
import { registerEntries } from "./routes/entries";
import { DOCUMENT_PATHS, registerDocuments } from "./routes/documents";
import { MCP_PATH, mcpGuard, registerMcp } from "./routes/mcp";
import { registerA2A } from "./routes/a2a";
import { registerAiCatalog } from "./routes/ai-catalog";

/**
 * Builds the Worker's app. `deps` replaces the clock and the outbound calls (DNS-over-HTTPS and the
 * verification callback) in tests; production uses the real ones.
 */
export function createApp(deps: Partial<Deps> = {}) {
  // The trie router: POST /transactions/batch beside /transactions/{id}/dispute is a pair Hono's
  // RegExpRouter cannot compile (docs/decisions.md: about 3 µs more per request, measured).
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook, router: new TrieRouter() });

  app.use("*", requestId());
  // Built once per environment (the env object is stable within an isolate), not per request.
  const built = new WeakMap<object, Deps>();
  app.use("*", async (c, next) => {
    let resolved = built.get(c.env);
    if (!resolved) {
      const outbound: typeof fetch = (input, init) => fetch(input, init);
      const endpoint = dohEndpoint(c.env);
      resolved = {
        now: deps.now ?? Date.now,
        fetchOutbound: deps.fetchOutbound ?? outbound,
        resolve: deps.resolve ?? (endpoint ? createDohResolver(endpoint, outbound) : null),
      };
      built.set(c.env, resolved);
      // A configuration that names the service wrongly, or allows loopback webhooks where they are
      // ignored, is logged at the isolate's first request.
      publicOrigin(c.env);
      loopbackWebhooks(c.env, publicOrigin(c.env));
    }
    c.set("deps", resolved);
    await next();
  });
  app.use("*", publicReads);
  app.use("*", methodNotAllowed({ app, onMethodNotAllowed: (c, methods) => renderError(c, errors.methodNotAllowed(methods.join(", "))) }));
  // Cached badges are answered before the rest of the middleware: a hit needs none of it.
  app.use("/badge/*", badgeFromCache);
  app.use("*", selectForm);
  // Before the body reader, which presents every body as JSON: /mcp serves JSON bodies only.
  app.use(MCP_PATH, mcpGuard);
  app.use("*", readBody);
  app.use("*", d1Session);

  registerHealth(app);
  registerApplications(app);
  registerAdmin(app);
  registerAdminCredibility(app);
  registerAdminOperators(app);
  registerAdminHistory(app);
  registerAdminMigrate(app);
  registerAdminReconcile(app);
  registerMe(app);
  registerAgents(app);
  registerScores(app);
  registerBadges(app);
  registerPublicPage(app);
  registerBatch(app);
  registerTransactions(app);
  registerEntries(app);
  registerVerification(app);
  registerIdentity(app);
  registerAttestations(app);
  registerStatusLists(app);
  registerCredentials(app);
  registerWebhooks(app);
  registerDisputes(app);
  registerKeys(app);
  registerWaitlist(app);
  registerMcp(app);
  registerA2A(app);
  registerAiCatalog(app);
  registerLog(app);

  registerDocuments(app);
  app.get("/", (c) => c.json({ service: "Agent Trust Scoring Service", docs: "/docs", openapi: DOCUMENT_PATHS.A, openapi_b: DOCUMENT_PATHS.B }));

  app.notFound((c) => renderError(c, errors.notFound()));
  app.onError((err, c) => renderError(c, fromFramework(err) ?? toApiError(err, c.get("requestId"))));
  return app;
}
