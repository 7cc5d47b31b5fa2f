// Test doubles for the network guard: nothing here reaches the internet.

export interface FetchCall {
  url: string;
  init: RequestInit | undefined;
}

/** A fetch that records every call and answers with `handler`. */
export function recordingFetch(handler: (url: string, init: RequestInit | undefined) => Response | Promise<Response>) {
  const calls: FetchCall[] = [];
  const fn = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    calls.push({ url, init });
    return handler(url, init);
  }) as typeof fetch;
  return { fn, calls };
}

/** A response that never arrives until the request's signal aborts. */
export function hangUntilAborted(init: RequestInit | undefined): Promise<Response> {
  return new Promise((_, reject) => {
    const signal = init?.signal;
    if (!signal) return; // would hang forever; tests always pass a signal
    if (signal.aborted) return reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason));
  });
}

export type DohRecord = { type: number; data: string; name?: string };

export interface DohZoneEntry {
  A?: DohRecord[];
  AAAA?: DohRecord[];
  status?: number; // DNS Status, default 0 (NOERROR)
  http?: number; // HTTP status, default 200
  body?: string; // raw body instead of JSON
  hang?: boolean;
}

export const A = (data: string, name?: string): DohRecord => ({ type: 1, data, name });
export const AAAA = (data: string, name?: string): DohRecord => ({ type: 28, data, name });
export const CNAME = (data: string, name?: string): DohRecord => ({ type: 5, data, name });

export const DOH_ENDPOINT = "https://dns.test/dns-query";

/** A fake DNS-over-HTTPS JSON server for a fixed zone; unknown names are NXDOMAIN. */
export function fakeDoh(zone: Record<string, DohZoneEntry>) {
  return recordingFetch((url, init) => {
    const u = new URL(url);
    const name = u.searchParams.get("name") ?? "";
    const type = u.searchParams.get("type") as "A" | "AAAA";
    const entry = zone[name];
    if (!entry) return Response.json({ Status: 3, Answer: [] });
    if (entry.hang) return hangUntilAborted(init);
    if (entry.body !== undefined) return new Response(entry.body, { status: entry.http ?? 200 });
    const answers = (entry[type] ?? []).map((r) => ({ name: r.name ?? `${name}.`, type: r.type, TTL: 60, data: r.data }));
    const body = { Status: entry.status ?? 0, Answer: answers.length ? answers : undefined };
    return Response.json(body, { status: entry.http ?? 200, headers: { "content-type": "application/dns-json" } });
  });
}
