// The typed client of the Agent Trust Scoring Service: openapi-fetch over the types openapi-typescript
// generated from the service's own OpenAPI documents (form-a.ts from /openapi.json, form-b.ts from
// /openapi-b.json). Every path, parameter, body and answer is typed; answers come back as
// `{data, error, response}`, never thrown.
import createClient, { type Client, type ClientOptions } from "openapi-fetch";
import type { paths as FormAPaths } from "./form-a";
import type { paths as FormBPaths } from "./form-b";

export type * from "./form-a";
/** Form B's types, for clients that send `API-Version: B`. */
export type * as FormB from "./form-b";

export type TrustClient = Client<FormAPaths>;
export type TrustClientB = Client<FormBPaths>;

export interface TrustClientOptions extends Omit<ClientOptions, "baseUrl"> {
  /** Where the service runs, e.g. http://127.0.0.1:8787 (`npm start`). */
  baseUrl: string;
  /** An operator API key (`sk_svc_...`) or the admin token: sent as `Authorization: Bearer ...`. */
  token?: string;
}

function options({ baseUrl, token, headers, ...rest }: TrustClientOptions, extra: Record<string, string> = {}): ClientOptions {
  return {
    ...rest,
    baseUrl: baseUrl.replace(/\/+$/, ""),
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...extra, ...(headers as Record<string, string> | undefined) },
  };
}

export const FORM_B = { "api-version": "B" } as const;

/** A Form A client (the default wire format). Without a token it reaches the public routes only. */
export const createTrustClient = (opts: TrustClientOptions): TrustClient => createClient<FormAPaths>(options(opts));

/**
 * A Form B client: it sends `API-Version: B` on every request. Form B's document declares the
 * header on each operation, so calls name it too: `params: { header: FORM_B }`.
 */
export const createTrustClientB = (opts: TrustClientOptions): TrustClientB => createClient<FormBPaths>(options(opts, FORM_B));
