import { z } from "zod";
import type { AgentScorer } from "./durable/agent-scorer";
import type { RateLimiter } from "./durable/rate-limiter";
import type { Resolver } from "./net/resolver";
import type { AuthContext } from "./http/auth";

export interface Env {
  DB: D1Database;
  AGENT_SCORER: DurableObjectNamespace<AgentScorer>;
  RATE_LIMITER: DurableObjectNamespace<RateLimiter>;
  /** Static assets (public/: the /docs page), served before the Worker runs. */
  ASSETS: Fetcher;
  ADMIN_TOKEN?: string;
  DOH_ENDPOINT?: string;
  /** Optional `send_email` binding; without it approval responses carry the key. */
  EMAIL?: SendEmail;
  EMAIL_FROM?: string;
}

// Validated once per isolate: a misconfigured deployment fails loudly instead of half working.
const varsSchema = z.object({
  ADMIN_TOKEN: z.string().min(12).optional(),
  DOH_ENDPOINT: z.url({ protocol: /^https$/ }).optional(),
  EMAIL_FROM: z.email().optional(),
});

export function validateEnv(env: Env): Env {
  const result = varsSchema.safeParse(env);
  if (!result.success) throw new Error(`Invalid configuration: ${z.prettifyError(result.error)}`);
  return env;
}

/** Outbound dependencies and the clock, injected so tests control them. */
export interface Deps {
  now: () => number;
  resolve?: Resolver;
  fetchCallback: typeof fetch;
}

export type Form = "A" | "B";

export type AppEnv = {
  Bindings: Env;
  Variables: {
    form: Form;
    auth: AuthContext;
    deps: Deps;
    /** This request's D1 session: reads may be served by a replica, at least as new as its bookmark. */
    db: D1DatabaseSession;
    /** The newest D1 bookmark this request wrote (from the agent's scorer), for X-D1-Bookmark. */
    bookmark: string | null;
    /** A request body validated by the form-aware validator (routes whose payload differs by form). */
    input: unknown;
  };
};

declare global {
  namespace Cloudflare {
    // `env` from cloudflare:workers is this Worker's Env.
    interface Env extends Bindings {}
  }
}
type Bindings = Env;
