import { describe, expect, it } from "vitest";
import { deliverChallenge } from "../../src/net/delivery";
import { hangUntilAborted, recordingFetch } from "./fakes";

const url = new URL("https://agent.example.com/cb");
const payload = { challenge_token: "a".repeat(64), sid: "SID-0x0123456789abcdef" };

describe("deliverChallenge", () => {
  it("POSTs the JSON challenge without following redirects and returns true on 200", async () => {
    let cancelled = false;
    const body = new ReadableStream({
      cancel() {
        cancelled = true;
      },
    });
    const cb = recordingFetch(() => new Response(body, { status: 200 }));
    expect(await deliverChallenge(url, payload, cb.fn)).toBe(true);

    expect(cb.calls).toHaveLength(1);
    const { url: sent, init } = cb.calls[0];
    expect(sent).toBe("https://agent.example.com/cb");
    expect(init?.method).toBe("POST");
    expect(new Headers(init?.headers).get("content-type")).toBe("application/json");
    expect(JSON.parse(init?.body as string)).toEqual(payload);
    expect(init?.redirect).toBe("manual");
    expect(init?.signal).toBeInstanceOf(AbortSignal);
    expect(cancelled).toBe(true); // the body is discarded, never read
  });

  it.each([200, 201, 202, 204, 299])("returns true on %i", async (status) => {
    const cb = recordingFetch(() => new Response(null, { status }));
    expect(await deliverChallenge(url, payload, cb.fn)).toBe(true);
  });

  it.each([500, 502, 404, 400, 401, 300, 304])("returns false on %i", async (status) => {
    const cb = recordingFetch(() => new Response("nope", { status }));
    expect(await deliverChallenge(url, payload, cb.fn)).toBe(false);
  });

  it.each([301, 302, 303, 307, 308])("treats a %i redirect to a private address as failure and never follows it", async (status) => {
    const cb = recordingFetch(() => new Response(null, { status, headers: { location: "http://169.254.169.254/latest/meta-data/" } }));
    expect(await deliverChallenge(url, payload, cb.fn)).toBe(false);
    expect(cb.calls).toHaveLength(1);
    expect(cb.calls[0].init?.redirect).toBe("manual");
  });

  it("returns false on timeout", async () => {
    const cb = recordingFetch((_, init) => hangUntilAborted(init));
    const started = Date.now();
    expect(await deliverChallenge(url, payload, cb.fn, 30)).toBe(false);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("returns false on a network error", async () => {
    const cb = recordingFetch(() => {
      throw new TypeError("Network connection lost.");
    });
    expect(await deliverChallenge(url, payload, cb.fn)).toBe(false);
  });

  it("only sends challenge_token and sid", async () => {
    const cb = recordingFetch(() => new Response(null, { status: 204 }));
    await deliverChallenge(url, { ...payload, secret: "x" } as typeof payload, cb.fn);
    expect(JSON.parse(cb.calls[0].init?.body as string)).toEqual(payload);
  });
});
