// Loopback webhooks for local development: the guard's one exception, and when it holds.
import { afterEach, describe, expect, it, vi } from "vitest";
import { checkCallbackUrl } from "../../src/net/callback-guard";
import { isLoopbackUrl, loopbackPolicy, loopbackWebhooks } from "../../src/net/loopback";

const resolvesInward = async () => ["127.0.0.1"];

afterEach(() => vi.restoreAllMocks());

describe("loopback webhook URLs", () => {
  it("are plain http to 127.0.0.1, [::1] or localhost, as written", () => {
    for (const url of ["http://127.0.0.1:9000/hook", "http://[::1]:9000/", "http://localhost:9000", "HTTP://LOCALHOST:9/x?y", "http://127.0.0.1/"]) {
      expect(isLoopbackUrl(url), url).toBe(true);
    }
    for (const url of [
      "https://127.0.0.1:9000/",
      "http://127.0.0.2:9000/",
      "http://127.1:9000/",
      "http://2130706433/",
      "http://0x7f000001/",
      "http://[::ffff:127.0.0.1]/",
      "http://localhost.:9000/",
      "http://hooks.localhost:9000/",
      "http://user:pw@127.0.0.1:9000/",
      "http://127.0.0.1.nip.io/",
      "http://10.0.0.1:9000/",
      " http://127.0.0.1:9000/",
    ]) {
      expect(isLoopbackUrl(url), url).toBe(false);
    }
  });

  it("pass the guard only when loopback is allowed; every other inward address is still refused", async () => {
    const allowed = { loopback: true };
    expect(await checkCallbackUrl("http://127.0.0.1:9000/hook", resolvesInward, "url", allowed)).toMatchObject({ ok: true });
    expect(await checkCallbackUrl("http://[::1]:9000/hook", resolvesInward, "url", allowed)).toMatchObject({ ok: true });
    expect(await checkCallbackUrl("http://localhost:9000/hook", resolvesInward, "url", allowed)).toMatchObject({ ok: true });
    expect(await checkCallbackUrl("http://127.0.0.1:9000/hook", resolvesInward, "url")).toEqual({ ok: false, message: "url must use HTTPS" });
    expect(await checkCallbackUrl("https://127.0.0.1/hook", resolvesInward, "url", allowed)).toEqual({ ok: false, message: "url must not resolve to a private address" });
    expect(await checkCallbackUrl("https://192.168.1.10/hook", resolvesInward, "url", allowed)).toEqual({ ok: false, message: "url must not resolve to a private address" });
    expect(await checkCallbackUrl("https://intranet.example.com/hook", resolvesInward, "url", allowed)).toEqual({ ok: false, message: "url must not resolve to a private address" });
    expect(await checkCallbackUrl("http://10.0.0.1:9000/hook", resolvesInward, "url", allowed)).toEqual({ ok: false, message: "url must use HTTPS" });
    expect(await checkCallbackUrl("http://127.1:9000/hook", resolvesInward, "url", allowed)).toEqual({ ok: false, message: "url must use HTTPS" });
  });
});

describe("ALLOW_LOOPBACK_WEBHOOKS", () => {
  it("holds only with a loopback public origin", () => {
    expect(loopbackPolicy("true", "http://127.0.0.1:8787")).toEqual({ allowed: true, problem: null });
    expect(loopbackPolicy("true", "http://localhost:8788")).toEqual({ allowed: true, problem: null });
    expect(loopbackPolicy("true", "http://[::1]:8787")).toEqual({ allowed: true, problem: null });
    expect(loopbackPolicy("true", "https://trust.example.com")).toEqual({
      allowed: false,
      problem: "ALLOW_LOOPBACK_WEBHOOKS is ignored: the public origin https://trust.example.com is not a loopback address",
    });
    expect(loopbackPolicy("true", "http://10.0.0.5:8787").allowed).toBe(false);
    expect(loopbackPolicy(undefined, "http://127.0.0.1:8787")).toEqual({ allowed: false, problem: null });
    expect(loopbackPolicy("1", "http://127.0.0.1:8787")).toEqual({ allowed: false, problem: null });
  });

  it("set where it cannot hold is ignored and logged as an error once", () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const env = { ALLOW_LOOPBACK_WEBHOOKS: "true" };
    expect(loopbackWebhooks(env, "https://trust.example.com")).toBe(false);
    expect(loopbackWebhooks(env, "https://trust.example.com")).toBe(false);
    expect(error).toHaveBeenCalledTimes(1);
    expect(JSON.parse(error.mock.calls[0][0] as string)).toMatchObject({ level: "error", message: expect.stringContaining("ALLOW_LOOPBACK_WEBHOOKS is ignored") });
    expect(loopbackWebhooks({ ALLOW_LOOPBACK_WEBHOOKS: "true" }, "http://127.0.0.1:8787")).toBe(true);
    expect(loopbackWebhooks({}, "http://127.0.0.1:8787")).toBe(false);
    expect(error).toHaveBeenCalledTimes(1);
  });
});
