// What an isolate keeps between requests must be usable by the next request. Every other route test
// sends all its requests through one app.fetch context; these go through the Worker's own fetch
// handler, one request context each, as production and `wrangler dev` serve them.
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { agentConfig, bearer, createOperator } from "../helpers";

const send = (path: string, key: string, body?: unknown) =>
  exports.default.fetch(
    new Request(`http://trust.test${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { ...bearer(key), "cf-connecting-ip": "203.0.113.9" },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );

describe("requests after the one that first touched an agent's object", () => {
  it("reach the same object: a report, a configuration change and a read after the registration", async () => {
    const { key } = await createOperator();
    const registered = await send("/register", key, { name: "Cross-request", ...agentConfig });
    expect(registered.status).toBe(201);
    const { sid } = (await registered.json()) as { sid: string };
    // A stub cached from the registration's request would fail here with 500.
    const reported = await send("/transactions", key, { sid, transactionType: "payment", outcome: "success" });
    expect(reported.status, await reported.clone().text()).toBe(201);
    const changed = await send(`/agents/${sid}/config`, key, { ...agentConfig, modelName: "another-model" });
    expect(changed.status, await changed.clone().text()).toBe(200);
    const score = (await (await send(`/score/${sid}`, key)).json()) as { composite_score: number };
    expect(score.composite_score).toBeGreaterThanOrEqual(500);
  });
});
