// Which answer a request asks for, where a path answers people and programs differently: the agent's
// public page is HTML for a browser, and the public score as JSON for every other client.

/** The path of an agent's public page. */
export const PAGE_PATH = /^\/agents\/[^/]+$/;

/** The highest quality the Accept header gives any of `types` by name (wildcards name none); 0 if none. */
function quality(accept: string, types: readonly string[]): number {
  let best = 0;
  for (const range of accept.split(",")) {
    const [type, ...params] = range.split(";").map((p) => p.trim().toLowerCase());
    if (!types.includes(type)) continue;
    const q = params.find((p) => p.startsWith("q="));
    const value = q === undefined ? 1 : Number(q.slice(2));
    if (Number.isFinite(value)) best = Math.max(best, Math.min(1, Math.max(0, value)));
  }
  return best;
}

/**
 * Whether the client asks for HTML: it names `text/html` (or XHTML) and ranks it above
 * `application/json`. A browser's navigation does; `*∕*`, no header, `application/json`, or a tie
 * keep the JSON answer, so no API client ever gets a page it did not name.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const html = quality(accept, ["text/html", "application/xhtml+xml"]);
  return html > 0 && html > quality(accept, ["application/json"]);
}

/** A browser's request for an agent's public page. */
export const isPageRequest = (method: string, path: string, accept: string | undefined) =>
  (method === "GET" || method === "HEAD") && PAGE_PATH.test(path) && prefersHtml(accept);
