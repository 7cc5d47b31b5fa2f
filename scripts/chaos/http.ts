// One request of the chaos run and what came of it: an answer (status, body) or none (the
// connection was cut, refused or timed out).

export type Json = any;

export interface Sent {
  method: string;
  path: string;
  token?: string;
  headers?: Record<string, string>;
  /** The raw body, sent as is (bad input is sent byte for byte). */
  body?: string;
}

export type Answered = { answered: true; status: number; text: string; json: Json; sentAt: number; at: number; life: number };
export type Attempt = Answered | { answered: false; error: string; sentAt: number; at: number; life: number };

/** Requests are cut short after this long: a service that hangs is an unanswered request too. */
const TIMEOUT_MS = 60_000;

export async function send(base: string, req: Sent, life: number): Promise<Attempt> {
  const headers: Record<string, string> = { ...(req.headers ?? {}) };
  if (req.token) headers.authorization = `Bearer ${req.token}`;
  if (req.body !== undefined) headers["content-type"] ??= "application/json";
  const sentAt = Date.now();
  try {
    const res = await fetch(`${base}${req.path}`, { method: req.method, headers, body: req.body, signal: AbortSignal.timeout(TIMEOUT_MS) });
    const text = await res.text();
    let json: Json = null;
    try {
      json = JSON.parse(text);
    } catch {
      // not JSON (a badge, a page)
    }
    return { answered: true, status: res.status, text, json, sentAt, at: Date.now(), life };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string; message?: string } };
    return { answered: false, error: e.cause?.code ?? e.cause?.message ?? e.name ?? String(err), sentAt, at: Date.now(), life };
  }
}

/** A JSON body. */
export const body = (value: unknown) => JSON.stringify(value);
