// The agent's public page in Chromium, at a desktop's width and a phone's, with and without the
// owner's opt-in: its content and headings, the chart and its text alternative, the contrast of every
// text, no horizontal scrolling, no request to another origin, no CSP violation; and a badge
// embedded on another site that links to it. Screenshots go to test/browser/artifacts/ (git-ignored).
import { mkdirSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launch, ready, service } from "./chromium.mjs";

const ARTIFACTS = join(process.cwd(), "test", "browser", "artifacts");
const WIDTHS = { desktop: { width: 1280, height: 900 }, phone: { width: 375, height: 812 } };

let ipCounter = 0;
async function call(method, path, { token, body } = {}) {
  // Each call its own address: /apply allows 5 an hour per address.
  const headers = { "content-type": "application/json", "cf-connecting-ip": `192.0.2.${140 + (++ipCounter % 100)}` };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${service.url}${path}`, { method, headers, body: body && JSON.stringify(body) });
  const text = await res.text();
  const json = text.startsWith("{") ? JSON.parse(text) : null;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return json;
}

async function operator(name) {
  const email = `page-${Date.now()}-${Math.random().toString(16).slice(2)}@example.com`;
  await call("POST", "/apply", { body: { name, email } });
  const { applications } = await call("GET", "/admin/applications?status=pending&limit=200", { token: service.adminToken });
  const application = applications.find((a) => a.email === email);
  return (await call("POST", `/admin/applications/${application.id}/approve`, { token: service.adminToken })).api_key;
}

const register = async (key, name) =>
  (await call("POST", "/register", { token: key, body: { name, modelProvider: "anthropic", modelName: "claude-sonnet", tools: ["invoice_lookup"] } })).sid;

/** Everything the page under test asked the network for, and every problem it reported. */
function watch(page) {
  const seen = { requests: [], problems: [] };
  page.on("request", (request) => seen.requests.push(request.url()));
  page.on("console", (message) => ["error", "warning"].includes(message.type()) && seen.problems.push(message.text()));
  page.on("pageerror", (error) => seen.problems.push(error.message));
  return seen;
}

/** In the page: every heading level in order, and texts whose contrast against their background is under 4.5:1. */
const inspect = () => {
  const parse = (value) => {
    const [r, g, b, a = 1] = value.match(/[\d.]+/g).map(Number);
    return { r, g, b, a };
  };
  const luminance = ({ r, g, b }) => {
    const lin = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  };
  const background = (element) => {
    for (let e = element; e; e = e.parentElement) {
      const colour = parse(getComputedStyle(e).backgroundColor);
      if (colour.a > 0) return colour;
    }
    return { r: 255, g: 255, b: 255, a: 1 };
  };
  const lowContrast = [];
  for (const element of document.querySelectorAll("body *")) {
    if (element.closest("svg")) continue; // SVG text here: only the chart's title and description, which are not drawn
    const ownText = [...element.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim() !== "");
    if (!ownText || element.getClientRects().length === 0) continue;
    const [hi, lo] = [luminance(parse(getComputedStyle(element).color)), luminance(background(element))].sort((x, y) => y - x);
    const ratio = (hi + 0.05) / (lo + 0.05);
    if (ratio < 4.5) lowContrast.push(`${element.tagName.toLowerCase()}.${element.className}: ${ratio.toFixed(2)}`);
  }
  return {
    lang: document.documentElement.lang,
    headings: [...document.querySelectorAll("h1, h2, h3, h4, h5, h6")].map((h) => ({ level: Number(h.tagName[1]), text: h.textContent })),
    lowContrast,
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  };
};

describe.skipIf(!ready)("the agent's public page in Chromium", () => {
  let browser;
  let plain;
  let open;
  let server;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await launch();
    const owner = await operator("Acme Agents");
    const reporters = [await operator("Reporter One"), await operator("Reporter Two"), await operator("Reporter Three")];
    plain = await register(owner, "Invoice Bot");
    open = await register(owner, "Reconciliation Agent <beta>");
    await call("PUT", `/agents/${open}/public-profile`, { token: owner, body: { public_profile: true } });
    const outcomes = ["success", "success", "partial", "success", "failure", "success", "success", "timeout", "success", "success", "success", "success"];
    const ids = [];
    for (const [i, outcome] of outcomes.entries()) {
      const signal = outcome === "success" ? 820 : 300;
      const body = { sid: open, transactionType: "invoice_reconciliation", outcome, reliabilitySignal: signal, qualitySignal: signal - 40, financialSignal: signal + 30 };
      ids.push((await call("POST", "/transactions", { token: reporters[i % 3], body })).transaction_id);
      if (i < 4) await call("POST", "/transactions", { token: reporters[i % 3], body: { ...body, sid: plain } });
    }
    await call("POST", `/transactions/${ids[4]}/dispute`, {
      token: owner,
      body: { reason: "Reported a failure, but the invoice was reconciled", statement: "Our logs show the reconciliation finished in 41 seconds." },
    });
    server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(
        `<!doctype html><title>A shop</title><p>Our invoicing agent:</p>` +
          `<a id="badge" href="${service.url}/agents/${plain}"><img src="${service.url}/badge/${plain}.svg" alt="trust badge"></a>`,
      );
    });
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
  });

  for (const [label, size] of Object.entries(WIDTHS)) {
    for (const optedIn of [false, true]) {
      it(`${optedIn ? "opted in" : "not opted in"}, at ${size.width} px: content, headings, chart, contrast, no scrolling sideways, nothing from elsewhere`, async () => {
        const sid = optedIn ? open : plain;
        const page = await browser.newPage({ viewport: size });
        const seen = watch(page);
        const res = await page.goto(`${service.url}/agents/${sid}`);
        expect(res.status()).toBe(200);
        expect(res.headers()["content-type"]).toBe("text/html; charset=utf-8");

        const facts = await page.evaluate(inspect);
        expect(facts.lang).toBe("en");
        expect(facts.headings[0]).toEqual({ level: 1, text: optedIn ? "Reconciliation Agent <beta>" : "Invoice Bot" });
        expect(facts.headings.filter((h) => h.level === 1)).toHaveLength(1);
        facts.headings.forEach((h, i) => i > 0 && expect(h.level, h.text).toBeLessThanOrEqual(facts.headings[i - 1].level + 1));
        const sections = facts.headings.filter((h) => h.level === 2).map((h) => h.text);
        expect(sections).toEqual(
          optedIn
            ? ["Trust score", "Why this score", "Five dimensions", "Score history", "Open disputes", "Verify this yourself", "Embed the badge"]
            : ["Trust score", "Verify this yourself", "Embed the badge"],
        );
        expect(facts.lowContrast).toEqual([]);
        expect(facts.scrollWidth).toBeLessThanOrEqual(facts.innerWidth);

        const score = await (await fetch(`${service.url}/score/${sid}/public`, { headers: { "cf-connecting-ip": `198.18.0.${++ipCounter % 250}` } })).json();
        expect(await page.locator(".composite").innerText()).toMatch(new RegExp(`^${score.composite_score}\\s*/ 1000$`));
        expect(await page.getByRole("img", { name: `trust: ${score.composite_score} · ${score.recommendation}` }).count()).toBe(1);
        expect(await page.locator("pre.copy code").first().innerText()).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);

        const chart = page.getByRole("img", { name: "Composite score over time" });
        if (optedIn) {
          await expect(chart.isVisible()).resolves.toBe(true);
          expect(await page.locator("svg.plot desc").textContent()).toMatch(/^The composite score from .+ recorded changes: it started at 500 and is now \d+;/);
          expect(await page.locator("svg.plot path.point").count()).toBe(14); // registered, 12 reports, now
          await page.locator("details summary").click();
          expect(await page.locator("figure table tbody tr").count()).toBe(14);
          expect(await page.locator(".disputes li").innerText()).toContain("Our logs show the reconciliation finished in 41 seconds.");
          expect(await page.content()).not.toContain("Reporter One");
        } else {
          expect(await chart.count()).toBe(0);
        }

        expect(seen.requests.filter((url) => /^https?:/.test(url) && new URL(url).origin !== service.url)).toEqual([]);
        expect(seen.requests.filter((url) => !url.startsWith(service.url) && !url.startsWith("data:image/svg+xml"))).toEqual([]);
        expect(seen.problems).toEqual([]);
        await page.screenshot({ path: join(ARTIFACTS, `public-page-${optedIn ? "opted-in" : "plain"}-${label}.png`), fullPage: true });
        await page.close();
      });
    }
  }

  it("is where a badge embedded on another site leads, and an unknown SID gets a page that says so", async () => {
    const page = await browser.newPage({ viewport: WIDTHS.phone });
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.locator("#badge").click();
    await page.waitForURL(`${service.url}/agents/${plain}`);
    expect(await page.locator("h1").innerText()).toBe("Invoice Bot");

    const missing = await page.goto(`${service.url}/agents/SID-0x0000000000000000`);
    expect(missing.status()).toBe(404);
    expect(await page.locator("h1").innerText()).toBe("Agent not found");
    await page.screenshot({ path: join(ARTIFACTS, "public-page-unknown-phone.png"), fullPage: true });
    await page.close();
  });
});
