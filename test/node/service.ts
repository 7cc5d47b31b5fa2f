// The service the Node-side tests run against (test/node/setup.mjs starts it).
import { inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    service: { url: string; adminToken: string };
  }
}

export const service = inject("service");

type Json = Record<string, any>;
const documents = new Map<string, Promise<Json>>();

/** A served OpenAPI document, fetched once. */
export function servedDocument(path: "/openapi.json" | "/openapi-b.json"): Promise<Json> {
  if (!documents.has(path)) documents.set(path, fetch(`${service.url}${path}`).then((res) => res.json() as Promise<Json>));
  return documents.get(path)!;
}
