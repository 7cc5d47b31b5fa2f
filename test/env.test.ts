// The service's configuration read once: its public origin.
import { describe, expect, it, vi } from "vitest";
import { DEFAULT_PUBLIC_ORIGIN, logOrigin, publicOrigin, readPublicOrigin, type Env } from "../src/env";

describe("PUBLIC_ORIGIN", () => {
  it("is an http(s) origin alone", () => {
    expect(readPublicOrigin("https://trust.example.com")).toEqual({ ok: true, origin: "https://trust.example.com" });
    expect(readPublicOrigin(" http://127.0.0.1:8788/ ")).toEqual({ ok: true, origin: "http://127.0.0.1:8788" });
    expect(readPublicOrigin("https://trust.example.com:443")).toEqual({ ok: true, origin: "https://trust.example.com" });
    for (const bad of [undefined, "", "trust.example.com", "ftp://trust.example.com", "https://trust.example.com/api", "https://u:p@trust.example.com", "https://trust.example.com/?a"]) {
      expect(readPublicOrigin(bad).ok).toBe(false);
    }
  });

  it("names the logs a deployment creates by its host", () => {
    expect(logOrigin({ PUBLIC_ORIGIN: "https://trust.example.com" } as Env, 3)).toBe("trust.example.com/log/3");
    expect(logOrigin({ PUBLIC_ORIGIN: "http://127.0.0.1:8788" } as Env, 0)).toBe("127.0.0.1:8788/log/0");
  });

  it("when unusable, gives way to the local default, logged once per configuration", () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const env = { PUBLIC_ORIGIN: "trust.example.com" } as Env;
      expect(publicOrigin(env)).toBe(DEFAULT_PUBLIC_ORIGIN);
      expect(publicOrigin(env)).toBe(DEFAULT_PUBLIC_ORIGIN);
      expect(error).toHaveBeenCalledTimes(1);
      expect(JSON.parse(error.mock.calls[0][0] as string)).toMatchObject({ level: "error", problem: "PUBLIC_ORIGIN is not a URL" });
    } finally {
      error.mockRestore();
    }
  });
});
