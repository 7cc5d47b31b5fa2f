import ipaddr from "ipaddr.js";

// Classifies an address for the callback SSRF guard. Only plain global unicast is public.
//
// Every IPv6 form that embeds or translates to an IPv4 address (IPv4-mapped, IPv4-compatible,
// NAT64, 6to4, Teredo) is refused outright, even when the embedded IPv4 is public: a gateway
// or the host stack may deliver such a packet to the embedded IPv4, and checking the embedded
// address per form is easy to get wrong. No legitimate callback needs one of these forms.
export function addressRange(ip: string): string {
  // Only canonical dotted decimal for IPv4: ipaddr also accepts 0177.0.0.1, 0x7f.1 and 127.1,
  // whose meaning differs between parsers, so anything non-canonical is not trusted as public.
  if (ipaddr.IPv4.isValidFourPartDecimal(ip)) return ipaddr.IPv4.parse(ip).range();
  if (!ipaddr.IPv6.isValid(ip)) return "invalid";

  const addr = ipaddr.IPv6.parse(ip);
  // A zone id is only meaningful for link-local / interface-scoped addresses.
  if (addr.zoneId) return "zoned";
  const range = addr.range();
  if (range !== "unicast") return range;
  // ::/96 IPv4-compatible (deprecated); ipaddr reports e.g. ::7f00:1 as unicast.
  if (addr.parts.slice(0, 6).every((p) => p === 0)) return "ipv4Compatible";
  // Global unicast is 2000::/3; everything else is unassigned or special.
  if (!addr.match(ipaddr.IPv6.parse("2000::"), 3)) return "notGlobalUnicast";
  return "unicast";
}

export function isPublicAddress(ip: string): boolean {
  return addressRange(ip) === "unicast";
}
