import { describe, expect, it } from "vitest";
import { createDohResolver } from "../../src/net/resolver";
import { A, AAAA, CNAME, DOH_ENDPOINT, fakeDoh, recordingFetch } from "./fakes";

describe("createDohResolver", () => {
  it("queries A and AAAA with the DoH JSON accept header and returns every address", async () => {
    const doh = fakeDoh({ "agent.example.com": { A: [A("93.184.216.34")], AAAA: [AAAA("2606:2800:220:1::1")] } });
    const resolve = createDohResolver(DOH_ENDPOINT, doh.fn);
    expect(await resolve("agent.example.com")).toEqual(["93.184.216.34", "2606:2800:220:1::1"]);

    expect(doh.calls.map((c) => c.url).sort()).toEqual([
      "https://dns.test/dns-query?name=agent.example.com&type=A",
      "https://dns.test/dns-query?name=agent.example.com&type=AAAA",
    ]);
    for (const call of doh.calls) {
      expect(new Headers(call.init?.headers).get("accept")).toBe("application/dns-json");
      expect(call.init?.method ?? "GET").toBe("GET");
      expect(call.init?.signal).toBeInstanceOf(AbortSignal);
    }
  });

  it("keeps existing query parameters of the endpoint and encodes the name", async () => {
    const doh = recordingFetch(() => Response.json({ Status: 0, Answer: [{ type: 1, data: "93.184.216.34" }] }));
    await createDohResolver("https://dns.test/resolve?ct=application/dns-json", doh.fn)("a&b.example.com");
    const url = new URL(doh.calls[0].url);
    expect(url.searchParams.get("ct")).toBe("application/dns-json");
    expect(url.searchParams.get("name")).toBe("a&b.example.com");
  });

  it("takes A/AAAA answers at the end of a CNAME chain and ignores the CNAME records", async () => {
    const doh = fakeDoh({
      "www.example.com": {
        A: [CNAME("edge.example.net."), CNAME("10.0.0.1"), A("93.184.216.34", "edge.example.net.")],
        AAAA: [CNAME("edge.example.net."), AAAA("2606:2800:220:1::1", "edge.example.net.")],
      },
    });
    expect(await createDohResolver(DOH_ENDPOINT, doh.fn)("www.example.com")).toEqual(["93.184.216.34", "2606:2800:220:1::1"]);
  });

  it("accepts a name with only AAAA records", async () => {
    const doh = fakeDoh({ "v6.example.com": { AAAA: [AAAA("2606:2800:220:1::1")] } });
    expect(await createDohResolver(DOH_ENDPOINT, doh.fn)("v6.example.com")).toEqual(["2606:2800:220:1::1"]);
  });

  const failures: [string, Parameters<typeof fakeDoh>[0]][] = [
    ["NXDOMAIN (Status 3)", {}],
    ["SERVFAIL (Status 2)", { "x.example.com": { status: 2 } }],
    ["REFUSED (Status 5)", { "x.example.com": { status: 5, A: [A("93.184.216.34")] } }],
    ["HTTP 500", { "x.example.com": { http: 500, A: [A("93.184.216.34")] } }],
    ["HTTP 404", { "x.example.com": { http: 404, A: [A("93.184.216.34")] } }],
    ["bad JSON", { "x.example.com": { body: "<html>not json" } }],
    ["JSON null", { "x.example.com": { body: "null" } }],
    ["JSON without Status", { "x.example.com": { body: '{"Answer":[{"type":1,"data":"93.184.216.34"}]}' } }],
    ["Answer not an array", { "x.example.com": { body: '{"Status":0,"Answer":{"type":1,"data":"93.184.216.34"}}' } }],
    ["no answers at all", { "x.example.com": {} }],
    ["only a CNAME whose data looks like an IP", { "x.example.com": { A: [CNAME("93.184.216.34")] } }],
    ["A record with invalid data", { "x.example.com": { A: [A("999.1.1.1")] } }],
    ["A record with non-canonical data", { "x.example.com": { A: [A("0x5d.184.216.34")] } }],
    ["A record with IPv6 data", { "x.example.com": { A: [A("2606:2800:220:1::1")] } }],
    ["AAAA record with IPv4 data", { "x.example.com": { AAAA: [AAAA("93.184.216.34")] } }],
    ["AAAA record with a zone id", { "x.example.com": { AAAA: [AAAA("fe80::1%eth0")] } }],
    ["A record with non-string data", { "x.example.com": { body: '{"Status":0,"Answer":[{"type":1,"data":1572395042}]}' } }],
    // Records it cannot read fail the resolution instead of being skipped.
    ["a record with a string type", { "x.example.com": { body: '{"Status":0,"Answer":[{"type":"A","data":"10.0.0.1"},{"type":1,"data":"93.184.216.34"}]}' } }],
    ["a record without data", { "x.example.com": { body: '{"Status":0,"Answer":[{"type":1},{"type":1,"data":"93.184.216.34"}]}' } }],
    ["a record that is not an object", { "x.example.com": { body: '{"Status":0,"Answer":["10.0.0.1",{"type":1,"data":"93.184.216.34"}]}' } }],
    ["a null record", { "x.example.com": { body: '{"Status":0,"Answer":[null,{"type":1,"data":"93.184.216.34"}]}' } }],
    ["a record of an unexpected type", { "x.example.com": { body: '{"Status":0,"Answer":[{"type":16,"data":"v=spf1"},{"type":1,"data":"93.184.216.34"}]}' } }],
  ];
  it.each(failures)("throws on %s", async (_, zone) => {
    const doh = fakeDoh(zone);
    await expect(createDohResolver(DOH_ENDPOINT, doh.fn)("x.example.com")).rejects.toThrow();
  });

  it("throws when only one of the two queries fails", async () => {
    const doh = recordingFetch((url) =>
      url.endsWith("type=A") ? Response.json({ Status: 0, Answer: [{ type: 1, data: "93.184.216.34" }] }) : Response.json({ Status: 2 }),
    );
    await expect(createDohResolver(DOH_ENDPOINT, doh.fn)("x.example.com")).rejects.toThrow(/status 2/);
  });

  it("throws on timeout", async () => {
    const doh = fakeDoh({ "x.example.com": { hang: true } });
    const started = Date.now();
    await expect(createDohResolver(DOH_ENDPOINT, doh.fn, 30)("x.example.com")).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("throws when fetch itself throws", async () => {
    const doh = recordingFetch(() => {
      throw new TypeError("network down");
    });
    await expect(createDohResolver(DOH_ENDPOINT, doh.fn)("x.example.com")).rejects.toThrow("network down");
  });
});
