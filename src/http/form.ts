import type { MiddlewareHandler } from "hono";
import type { ZodType } from "zod";
import { errors } from "../domain/errors";
import type { AppEnv, Form } from "./context";
import { validationHook } from "./validation";

/** Badges are images for web pages: they ignore the API-Version header. */
export const ignoresForm = (path: string) => path.startsWith("/badge/");

/** Selects the wire form: no header or `A` is Form A, `B` is Form B, anything else is refused. */
export const selectForm: MiddlewareHandler<AppEnv> = async (c, next) => {
  const version = c.req.header("api-version")?.trim();
  c.set("form", version === "B" ? "B" : "A");
  if (version !== undefined && version !== "A" && version !== "B" && !ignoresForm(c.req.path)) {
    throw errors.badApiVersion();
  }
  await next();
};

/**
 * For routes whose request payload differs between Form A and Form B: validates the body with the
 * schema of the request's form (the route declares both for the OpenAPI document).
 */
export function formBody(schemas: Record<Form, ZodType>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    let raw: unknown;
    try {
      raw = await c.req.json();
    } catch {
      throw errors.invalidJson();
    }
    const result = schemas[c.get("form")].safeParse(raw);
    validationHook(result);
    c.set("input", result.data);
    await next();
  };
}
