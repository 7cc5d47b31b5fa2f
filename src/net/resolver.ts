import ipaddr from "ipaddr.js";

/** Every A and AAAA address of a host name; throws on any failure. */
export type Resolver = (host: string) => Promise<string[]>;

const TYPE_A = 1;
const TYPE_AAAA = 28;
/** Records that may accompany an address answer: CNAME, DNAME and RRSIG. */
const NAME_TYPES = new Set([5, 39, 46]);

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
    // Only A/AAAA records carry addresses; names in a chain (CNAME, DNAME) and their signatures are
    // never parsed as IPs. A record of any other shape or type means the answer is not understood:
    // the resolution fails, and the caller refuses the URL.
    for (const answer of answers as DohAnswer[]) {
      const data = answer?.data;
      if (typeof data !== "string") throw new Error(`DoH ${type} query for ${host}: unreadable record`);
      if (answer.type === TYPE_A) {
        if (!ipaddr.IPv4.isValidFourPartDecimal(data)) throw new Error(`DoH ${type} query for ${host}: bad A data`);
        addresses.push(data);
      } else if (answer.type === TYPE_AAAA) {
        if (data.includes("%") || !ipaddr.IPv6.isValid(data)) throw new Error(`DoH ${type} query for ${host}: bad AAAA data`);
        addresses.push(data);
      } else if (!NAME_TYPES.has(answer.type as number)) {
        throw new Error(`DoH ${type} query for ${host}: unexpected record type ${String(answer.type)}`);
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
