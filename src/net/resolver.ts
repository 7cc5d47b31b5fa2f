import ipaddr from "ipaddr.js";

/** Every A and AAAA address of a host name; throws on any failure. */
export type Resolver = (host: string) => Promise<string[]>;

const TYPE_A = 1;
const TYPE_AAAA = 28;

interface DohAnswer {
  type?: unknown;
  data?: unknown;
}

// DNS-over-HTTPS JSON API (Cloudflare / Google dialect). Fails closed: any doubt about the
// answer is an error, because the caller refuses the callback URL when resolution fails.
export function createDohResolver(endpoint: string, fetchFn: typeof fetch, timeoutMs = 5000): Resolver {
  async function query(host: string, type: "A" | "AAAA", signal: AbortSignal): Promise<string[]> {
    const url = new URL(endpoint);
    url.searchParams.set("name", host);
    url.searchParams.set("type", type);
    const res = await fetchFn(url.href, { headers: { accept: "application/dns-json" }, signal });
    if (!res.ok) {
      await res.body?.cancel().catch(() => {});
      throw new Error(`DoH ${type} query for ${host}: HTTP ${res.status}`);
    }
    const body = (await res.json()) as { Status?: unknown; Answer?: unknown } | null;
    if (body?.Status !== 0) throw new Error(`DoH ${type} query for ${host}: DNS status ${String(body?.Status)}`);
    const answers = body.Answer ?? [];
    if (!Array.isArray(answers)) throw new Error(`DoH ${type} query for ${host}: malformed Answer`);

    const addresses: string[] = [];
    // Only A/AAAA records carry addresses; CNAME and other data are names, never parsed as IPs.
    // All A/AAAA records are taken, whichever name in a CNAME chain they belong to.
    for (const answer of answers as DohAnswer[]) {
      const data = answer?.data;
      if (answer?.type === TYPE_A) {
        if (typeof data !== "string" || !ipaddr.IPv4.isValidFourPartDecimal(data)) {
          throw new Error(`DoH ${type} query for ${host}: bad A data`);
        }
        addresses.push(data);
      } else if (answer?.type === TYPE_AAAA) {
        if (typeof data !== "string" || data.includes("%") || !ipaddr.IPv6.isValid(data)) {
          throw new Error(`DoH ${type} query for ${host}: bad AAAA data`);
        }
        addresses.push(data);
      }
    }
    return addresses;
  }

  return async (host) => {
    const signal = AbortSignal.timeout(timeoutMs);
    const [a, aaaa] = await Promise.all([query(host, "A", signal), query(host, "AAAA", signal)]);
    const addresses = [...a, ...aaaa];
    if (addresses.length === 0) throw new Error(`no A or AAAA records for ${host}`);
    return addresses;
  };
}
