// The /docs page is a static asset (public/docs.html), answered by Cloudflare before the Worker runs,
// so it is read here through the ASSETS binding; test/browser/ loads it in Chromium.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

const asset = (path: string) => env.ASSETS.fetch(`http://trust.test${path}`);

describe("GET /docs", () => {
  it("is an HTML page that loads the pinned Swagger UI from the same origin, under a CSP", async () => {
    const res = await asset("/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(res.headers.get("content-security-policy")).toContain("connect-src 'self'");
    const html = await res.text();
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(refs).toEqual(["/swagger-ui/favicon-32x32.png", "/swagger-ui/swagger-ui.css", "/swagger-ui/swagger-ui-bundle.js", "/docs.js"]);
    for (const ref of refs) {
      const loaded = await asset(ref);
      expect(loaded.status, ref).toBe(200);
      expect((await loaded.arrayBuffer()).byteLength, ref).toBeGreaterThan(0);
    }
  });

  it("points Swagger UI at the service's own /openapi.json", async () => {
    expect(await (await asset("/docs.js")).text()).toContain('url: "/openapi.json"');
  });
});
