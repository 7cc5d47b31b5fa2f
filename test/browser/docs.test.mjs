// /docs in a real browser: Swagger UI renders every operation of /openapi.json, and the page loads
// nothing from another origin (no CDN).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launch, ready, service } from "./chromium.mjs";

describe.skipIf(!ready)("GET /docs in Chromium", () => {
  let browser;
  beforeAll(async () => {
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("lists every operation of /openapi.json, with nothing loaded from another origin", async () => {
    const page = await browser.newPage();
    const requested = [];
    const problems = [];
    page.on("request", (request) => requested.push(request.url()));
    page.on("console", (message) => message.type() === "error" && problems.push(message.text()));
    page.on("pageerror", (error) => problems.push(error.message));
    page.on("response", (response) => response.status() >= 400 && problems.push(`${response.status()} ${response.url()}`));

    const res = await page.goto(`${service.url}/docs`);
    expect(res.status()).toBe(200);
    await page.locator('.opblock-get .opblock-summary-path[data-path="/score/{sid}"]').waitFor({ timeout: 20_000 });
    await expect(page.locator('.opblock-post .opblock-summary-path[data-path="/transactions"]').count()).resolves.toBe(1);

    const doc = await (await fetch(`${service.url}/openapi.json`)).json();
    const operations = Object.values(doc.paths).flatMap((item) => Object.keys(item));
    expect(await page.locator(".opblock").count()).toBe(operations.length);
    expect(await page.locator(".info .title").innerText()).toContain(doc.info.title);

    expect(requested).toContain(`${service.url}/openapi.json`);
    expect(requested.filter((url) => new URL(url).origin !== service.url)).toEqual([]);
    expect(problems).toEqual([]);
  });
});
