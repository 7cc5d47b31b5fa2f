// The frame of every public page: one document, its inline style sheet, and the headers that lock
// it down. The page runs no script and loads nothing: its Content-Security-Policy allows only its
// own style sheet (by hash) and images inlined as data: URIs or from the service itself.
import { raw } from "hono/html";
import type { Child } from "hono/jsx";
import { ApiError } from "../../../domain/errors";
import { STYLE } from "./style";

let styleSource: Promise<string> | undefined;

/** `'sha256-…'` of the style sheet: computed at the first page (a Worker may not hash at start-up). */
function styleHash(): Promise<string> {
  styleSource ??= crypto.subtle.digest("SHA-256", new TextEncoder().encode(STYLE)).then((d) => `'sha256-${btoa(String.fromCharCode(...new Uint8Array(d)))}'`);
  return styleSource;
}

/** The headers of every public page: HTML, no script, nothing from elsewhere, never framed. */
export async function pageHeaders(): Promise<Record<string, string>> {
  return {
    "Content-Type": "text/html; charset=utf-8",
    "Content-Security-Policy": `default-src 'none'; style-src ${await styleHash()}; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
  };
}

/** A whole page: `lang`, the viewport of a phone, one `main`. Text children are escaped by JSX. */
export function renderDocument(title: string, body: Child): string {
  const page = (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{title}</title>
        {/* No icon: a browser would otherwise ask the service for /favicon.ico. */}
        <link rel="icon" href="data:," />
        {/* The service's own constant, so not escaped: its hash is in the Content-Security-Policy. */}
        <style>{raw(STYLE)}</style>
      </head>
      <body>{body}</body>
    </html>
  );
  return `<!doctype html>${page.toString()}`;
}

/** An error of a page route, for a person: the error's own text (src/domain/errors.ts) in a page. */
export function renderErrorPage(error: ApiError, requestId: string): string {
  const retry = error.headers["Retry-After"];
  return renderDocument(
    error.message,
    <main>
      <h1>{error.message}</h1>
      {error.status === 404 ? <p>No agent has this SID. Check the link: an SID is SID-0x followed by 16 hexadecimal characters.</p> : null}
      {retry ? <p>Try again in {retry} seconds.</p> : null}
      <p class="muted">
        Status {error.status}. Request id <code>{requestId}</code>.
      </p>
    </main>,
  );
}
