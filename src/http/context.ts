// What a request carries through the middleware: Hono's context types for this app.
import type { MiddlewareHandler } from "hono";
import type { Database } from "../db/client";
import type { Env } from "../env";
import type { RateWindow } from "../domain/limits";
import type { Resolver } from "../net/resolver";
import type { Scope } from "../domain/scopes";
import type { Sessions } from "./sessions";

/** Outbound dependencies and the clock, injected so tests control them. */
export interface Deps {
  now: () => number;
  /** null when the configured resolver endpoint is unusable: callbacks are then refused (503). */
  resolve: Resolver | null;
  fetchOutbound: typeof fetch;
}

export type Form = "A" | "B";

export interface AuthContext {
  keyId: number;
  keyPrefix: string;
  operatorId: number;
  operatorName: string;
  verified: boolean;
  scopes: Scope[];
}

/** Who may call a route, as its middleware decides it: the OpenAPI documents describe it from this. */
export type Access =
  | { kind: "key"; scope: Scope | null; /** Or, without a key, the agent's own signature (the route says how). */ orAgentSignature?: boolean }
  | { kind: "admin" }
  | { kind: "public"; limit: RateWindow }
  /** Public, and a key is passed on to the keyed routes the route calls, which check it. */
  | { kind: "optional-key" };

export type AccessMiddleware = MiddlewareHandler<AppEnv> & { access: Access };

/** Labels a middleware with the access it grants, for the documents. */
export const granting = (access: Access, middleware: MiddlewareHandler<AppEnv>): AccessMiddleware => Object.assign(middleware, { access });

export type AppEnv = {
  Bindings: Env;
  Variables: {
    form: Form;
    auth: AuthContext;
    deps: Deps;
    requestId: string;
    /** This request's D1 sessions, one per database it touches. */
    sessions: Sessions;
    /** The control database, as this request reads it (./sessions): the primary, a replica at least as new as the client's bookmark, or any replica for a public read. */
    db: Database;
    /** A request body validated by the form-aware validator (routes whose payload differs by form). */
    input: unknown;
    /** The tier windows this request was counted in (a batch gives back what it did not record). */
    rateWindows: RateWindow[];
  };
};
