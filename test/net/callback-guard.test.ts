import { describe, expect, it } from "vitest";
import { checkCallbackUrl, MAX_CALLBACK_URL_LENGTH } from "../../src/net/callback-guard";
import { deliverChallenge } from "../../src/net/delivery";
import { createDohResolver, type Resolver } from "../../src/net/resolver";
import { A, AAAA, CNAME, DOH_ENDPOINT, fakeDoh, type DohZoneEntry, recordingFetch } from "./fakes";

const REQUIRED = "callbackUrl is required";
const INVALID = "callbackUrl must be a valid URL";
const HTTPS = "callbackUrl must use HTTPS";
const PORT = "callbackUrl must use port 443";
const CREDS = "callbackUrl must not contain credentials";
const PRIVATE = "callbackUrl must not resolve to a private address";

const PUBLIC_ZONE: DohZoneEntry = { A: [A("93.184.216.34")], AAAA: [AAAA("2606:2800:220:1::1")] };
const payload = { challenge_token: "f".repeat(64), sid: "SID-0x0123456789abcdef" };

/** A resolver that records its calls and answers public addresses: refusals must not depend on it. */
function spyResolver() {
  const calls: string[] = [];
  const resolve: Resolver = async (host) => {
    calls.push(host);
    return ["93.184.216.34"];
  };
  return { resolve, calls };
}

/** The verify flow as the route runs it: check, then deliver only if allowed. */
async function verifyFlow(raw: unknown, resolve: Resolver) {
  const callback = recordingFetch(() => new Response(null, { status: 200 }));
  const check = await checkCallbackUrl(raw, resolve);
  const delivered = check.ok ? await deliverChallenge(check.url, payload, callback.fn) : false;
  return { check, delivered, callbackCalls: callback.calls };
}

// Refused before any DNS lookup: syntax, scheme, port, credentials, IP literals, local names.
const refusedWithoutDns: [label: string, raw: unknown, message: string][] = [
  // missing / malformed
  ["undefined", undefined, REQUIRED],
  ["null", null, REQUIRED],
  ["empty string", "", REQUIRED],
  ["blank string", "   ", REQUIRED],
  ["number", 42, REQUIRED],
  ["object", { href: "https://agent.example.com/" }, REQUIRED],
  ["not a URL", "agent.example.com/cb", INVALID],
  ["scheme only", "https://", INVALID],
  ["IPv4 octet out of range", "https://256.0.0.1/", INVALID],
  ["five-part numeric host", "https://1.2.3.4.5/", INVALID],
  ["numeric host above 2^32", "https://0x100000000/", INVALID],
  ["invalid octal part", "https://09.0.0.1/", INVALID],
  ["too long", `https://agent.example.com/${"a".repeat(MAX_CALLBACK_URL_LENGTH)}`, INVALID],
  // IPv4 literals in every encoding the URL parser accepts
  ["decimal integer loopback", "https://2130706433/", PRIVATE],
  ["hex integer loopback", "https://0x7f000001/", PRIVATE],
  ["hex short loopback", "https://0x7f.1/", PRIVATE],
  ["octal loopback", "https://0177.0.0.1/", PRIVATE],
  ["short loopback", "https://127.1/", PRIVATE],
  ["dotted loopback", "https://127.0.0.1/cb", PRIVATE],
  ["loopback with trailing dot", "https://127.0.0.1./", PRIVATE],
  ["percent-encoded loopback", "https://%31%32%37.0.0.1/", PRIVATE],
  ["full-width loopback", "https://１２７.０.０.１/", PRIVATE],
  ["private 10/8", "https://10.0.0.1/", PRIVATE],
  ["private 172.16/12", "https://172.16.0.1/", PRIVATE],
  ["private 172.16/12 top", "https://172.31.255.255/", PRIVATE],
  ["private 192.168/16", "https://192.168.1.1/", PRIVATE],
  ["cloud metadata", "https://169.254.169.254/latest/meta-data/", PRIVATE],
  ["carrier-grade NAT", "https://100.64.0.1/", PRIVATE],
  ["unspecified", "https://0.0.0.0/", PRIVATE],
  ["unspecified as 0", "https://0/", PRIVATE],
  ["broadcast", "https://255.255.255.255/", PRIVATE],
  ["multicast", "https://224.0.0.1/", PRIVATE],
  ["reserved 240/4", "https://240.0.0.1/", PRIVATE],
  ["IETF 192.0.0/24", "https://192.0.0.1/", PRIVATE],
  ["documentation 192.0.2/24", "https://192.0.2.1/", PRIVATE],
  ["documentation 198.51.100/24", "https://198.51.100.1/", PRIVATE],
  ["documentation 203.0.113/24", "https://203.0.113.1/", PRIVATE],
  ["benchmarking 198.18/15", "https://198.18.0.1/", PRIVATE],
  // IPv6 literals
  ["IPv6 loopback", "https://[::1]/", PRIVATE],
  ["IPv6 loopback expanded", "https://[0:0:0:0:0:0:0:1]/", PRIVATE],
  ["IPv6 unspecified", "https://[::]/", PRIVATE],
  ["IPv6 link-local", "https://[fe80::1]/", PRIVATE],
  ["IPv6 unique-local fc00", "https://[fc00::1]/", PRIVATE],
  ["IPv6 unique-local fd12", "https://[fd12::1]/", PRIVATE],
  ["IPv6 site-local", "https://[fec0::1]/", PRIVATE],
  ["IPv6 multicast", "https://[ff02::1]/", PRIVATE],
  ["IPv4-mapped dotted", "https://[::ffff:127.0.0.1]/", PRIVATE],
  ["IPv4-mapped hex", "https://[::ffff:7f00:1]/", PRIVATE],
  ["IPv4-mapped expanded", "https://[0:0:0:0:0:ffff:7f00:1]/", PRIVATE],
  ["IPv4-mapped public (embedding refused outright)", "https://[::ffff:93.184.216.34]/", PRIVATE],
  ["IPv4-compatible", "https://[::127.0.0.1]/", PRIVATE],
  ["NAT64", "https://[64:ff9b::7f00:1]/", PRIVATE],
  ["NAT64 public (embedding refused outright)", "https://[64:ff9b::5db8:d822]/", PRIVATE],
  ["NAT64 local-use", "https://[64:ff9b:1::a00:1]/", PRIVATE],
  ["6to4", "https://[2002:7f00:1::]/", PRIVATE],
  ["Teredo", "https://[2001:0:4136:e378::1]/", PRIVATE],
  ["IPv6 documentation", "https://[2001:db8::1]/", PRIVATE],
  ["IPv6 discard", "https://[100::1]/", PRIVATE],
  ["ORCHID", "https://[2001:10::1]/", PRIVATE],
  // zone ids: the WHATWG parser in workerd rejects them
  ["zone id percent-encoded", "https://[fe80::1%25eth0]/", INVALID],
  ["zone id raw", "https://[fe80::1%eth0]/", INVALID],
  // user-info
  ["user and password", "https://user:pass@example.com/", CREDS],
  ["user only", "https://user@example.com/", CREDS],
  ["password only", "https://:pass@example.com/", CREDS],
  ["credentials before a private IP", "https://user:pass@127.0.0.1/", CREDS],
  // ports
  ["port 8443", "https://agent.example.com:8443/", PORT],
  ["port 80", "https://agent.example.com:80/", PORT],
  ["port 444", "https://agent.example.com:444/", PORT],
  ["port on a private IP", "https://10.0.0.1:8443/", PORT],
  // schemes
  ["http", "http://agent.example.com/", HTTPS],
  ["http to metadata", "http://169.254.169.254/", HTTPS],
  ["ftp", "ftp://agent.example.com/", HTTPS],
  ["file", "file:///etc/passwd", HTTPS],
  ["javascript", "javascript:alert(1)", HTTPS],
  ["data", "data:text/plain,hello", HTTPS],
  ["gopher", "gopher://agent.example.com:70/_x", HTTPS],
  ["wss", "wss://agent.example.com/", HTTPS],
  // local names
  ["localhost", "https://localhost/", PRIVATE],
  ["localhost upper case with trailing dot", "https://LOCALHOST./", PRIVATE],
  ["full-width localhost", "https://ｌｏｃａｌｈｏｓｔ/", PRIVATE],
  ["subdomain of localhost", "https://api.localhost/", PRIVATE],
  ["single label", "https://intranet/", PRIVATE],
  ["single label with trailing dot", "https://metadata./", PRIVATE],
];

// Refused after resolving through the DoH resolver against a fake DNS server.
const refusedByDns: [label: string, zone: DohZoneEntry | "hang" | undefined, message: string][] = [
  ["A 10.0.0.1", { A: [A("10.0.0.1")] }, PRIVATE],
  ["A 127.0.0.1", { A: [A("127.0.0.1")] }, PRIVATE],
  ["A cloud metadata", { A: [A("169.254.169.254")] }, PRIVATE],
  ["A 0.0.0.0", { A: [A("0.0.0.0")] }, PRIVATE],
  ["AAAA ::1", { AAAA: [AAAA("::1")] }, PRIVATE],
  ["AAAA IPv4-mapped private", { AAAA: [AAAA("::ffff:10.0.0.1")] }, PRIVATE],
  ["AAAA unique-local", { AAAA: [AAAA("fd00::1")] }, PRIVATE],
  ["mixed: public A, private AAAA", { A: [A("93.184.216.34")], AAAA: [AAAA("fe80::1")] }, PRIVATE],
  ["mixed: public and private A", { A: [A("93.184.216.34"), A("192.168.0.10")] }, PRIVATE],
  ["mixed: private A, public AAAA", { A: [A("172.16.5.5")], AAAA: [AAAA("2606:2800:220:1::1")] }, PRIVATE],
  [
    "CNAME chain ending in a private address",
    { A: [CNAME("hop1.example.net."), CNAME("hop2.example.org.", "hop1.example.net."), A("10.1.2.3", "hop2.example.org.")] },
    PRIVATE,
  ],
  ["CNAME whose data looks like a public IP, no A", { A: [CNAME("93.184.216.34")] }, PRIVATE],
  ["NXDOMAIN (Status 3)", undefined, PRIVATE],
  ["SERVFAIL (Status 2)", { status: 2, A: [A("93.184.216.34")] }, PRIVATE],
  ["HTTP 500 from DoH", { http: 500, A: [A("93.184.216.34")] }, PRIVATE],
  ["bad JSON from DoH", { body: "{not json" }, PRIVATE],
  ["no answers", {}, PRIVATE],
  ["malformed A data", { A: [A("10.0.0.256")] }, PRIVATE],
  ["DoH timeout", "hang", PRIVATE],
];

describe("checkCallbackUrl refuses", () => {
  it.each(refusedWithoutDns)("%s", async (_, raw, message) => {
    const dns = spyResolver();
    const { check, delivered, callbackCalls } = await verifyFlow(raw, dns.resolve);
    expect(check).toEqual({ ok: false, message });
    expect(delivered).toBe(false);
    expect(callbackCalls).toHaveLength(0);
    expect(dns.calls).toHaveLength(0);
  });

  it.each(refusedByDns)("name resolving to %s", async (_, entry, message) => {
    const host = "agent.example.com";
    const doh = fakeDoh(entry === undefined ? {} : { [host]: entry === "hang" ? { hang: true } : entry });
    const { check, callbackCalls } = await verifyFlow(`https://${host}/cb`, createDohResolver(DOH_ENDPOINT, doh.fn, 50));
    expect(check).toEqual({ ok: false, message });
    expect(callbackCalls).toHaveLength(0);
    expect(doh.calls.map((c) => new URL(c.url).searchParams.get("name"))).toEqual([host, host]);
  });

  it("when the resolver throws or returns nothing", async () => {
    for (const resolve of [
      async () => {
        throw new Error("boom");
      },
      async () => [],
      async () => ["not-an-ip"],
    ] as Resolver[]) {
      const { check, callbackCalls } = await verifyFlow("https://agent.example.com/cb", resolve);
      expect(check).toEqual({ ok: false, message: PRIVATE });
      expect(callbackCalls).toHaveLength(0);
    }
  });

  it("has at least 40 table cases", () => {
    expect(refusedWithoutDns.length + refusedByDns.length).toBeGreaterThanOrEqual(40);
  });
});

describe("checkCallbackUrl accepts", () => {
  it("a name resolving only to public A and AAAA addresses, and delivery goes to that URL", async () => {
    const doh = fakeDoh({ "agent.example.com": PUBLIC_ZONE });
    const { check, delivered, callbackCalls } = await verifyFlow("https://agent.example.com/cb", createDohResolver(DOH_ENDPOINT, doh.fn));
    expect(check.ok).toBe(true);
    expect(check.ok && check.url.href).toBe("https://agent.example.com/cb");
    expect(delivered).toBe(true);
    expect(callbackCalls.map((c) => c.url)).toEqual(["https://agent.example.com/cb"]);
  });

  it("a CNAME chain ending at public addresses, ignoring an IP-looking CNAME", async () => {
    const doh = fakeDoh({ "agent.example.com": { A: [CNAME("10.0.0.1"), A("93.184.216.34", "10.0.0.1.")] } });
    const { check } = await verifyFlow("https://agent.example.com/cb", createDohResolver(DOH_ENDPOINT, doh.fn));
    expect(check.ok).toBe(true);
  });

  it.each([
    ["https://agent.example.com:443/cb", "https://agent.example.com/cb"],
    ["https://AGENT.example.com/cb?x=1#frag", "https://agent.example.com/cb?x=1#frag"],
    ["https://agent.example.com./cb", "https://agent.example.com./cb"],
  ])("%s", async (raw, href) => {
    const dns = spyResolver();
    const check = await checkCallbackUrl(raw, dns.resolve);
    expect(check).toEqual({ ok: true, url: new URL(href) });
    expect(dns.calls).toEqual(["agent.example.com"]);
  });

  it.each(["https://93.184.216.34/cb", "https://93.184.216.34:443/cb", "https://[2606:2800:220:1::1]/cb"])(
    "public IP literal %s without DNS",
    async (raw) => {
      const dns = spyResolver();
      const { check, delivered, callbackCalls } = await verifyFlow(raw, dns.resolve);
      expect(check.ok).toBe(true);
      expect(delivered).toBe(true);
      expect(callbackCalls).toHaveLength(1);
      expect(dns.calls).toHaveLength(0);
    },
  );

  it("a URL of exactly the maximum length", async () => {
    const base = "https://agent.example.com/";
    const raw = base + "a".repeat(MAX_CALLBACK_URL_LENGTH - base.length);
    expect((await checkCallbackUrl(raw, spyResolver().resolve)).ok).toBe(true);
  });
});

describe("redirects to private addresses at delivery", () => {
  it("a 302 to cloud metadata is a failure and is never followed", async () => {
    const doh = fakeDoh({ "agent.example.com": PUBLIC_ZONE });
    const check = await checkCallbackUrl("https://agent.example.com/cb", createDohResolver(DOH_ENDPOINT, doh.fn));
    if (!check.ok) throw new Error(check.message);
    const callback = recordingFetch(() => new Response(null, { status: 302, headers: { location: "http://169.254.169.254/" } }));
    expect(await deliverChallenge(check.url, payload, callback.fn)).toBe(false);
    expect(callback.calls).toHaveLength(1);
    expect(callback.calls[0].url).toBe("https://agent.example.com/cb");
    expect(callback.calls[0].init?.redirect).toBe("manual");
  });
});
