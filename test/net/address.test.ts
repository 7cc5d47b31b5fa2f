import { describe, expect, it } from "vitest";
import { addressRange, isPublicAddress } from "../../src/net/address";

describe("isPublicAddress", () => {
  it.each([
    "93.184.216.34",
    "8.8.8.8",
    "1.1.1.1",
    "172.32.0.1",
    "100.128.0.1",
    "2606:2800:220:1::1",
    "2a00:1450:4001:80b::200e",
  ])("%s is public", (ip) => {
    expect(addressRange(ip)).toBe("unicast");
    expect(isPublicAddress(ip)).toBe(true);
  });

  it.each([
    ["127.0.0.1", "loopback"],
    ["10.0.0.1", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "linkLocal"],
    ["100.64.0.1", "carrierGradeNat"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["255.255.255.255", "broadcast"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["240.0.0.1", "reserved"],
    ["192.0.0.1", "reserved"],
    ["192.0.2.1", "reserved"],
    ["198.18.0.1", "reserved"],
    ["198.19.255.255", "reserved"],
    ["198.51.100.1", "reserved"],
    ["203.0.113.1", "reserved"],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["fe80::1", "linkLocal"],
    ["fc00::1", "uniqueLocal"],
    ["fd12::1", "uniqueLocal"],
    ["fec0::1", "deprecatedSiteLocal"],
    ["ff02::1", "multicast"],
    ["::ffff:127.0.0.1", "ipv4Mapped"],
    ["::ffff:7f00:1", "ipv4Mapped"],
    ["::ffff:8.8.8.8", "ipv4Mapped"], // embedded public IPv4 is still refused
    ["::7f00:1", "ipv4Compatible"],
    ["::808:808", "ipv4Compatible"],
    ["64:ff9b::7f00:1", "rfc6052"],
    ["64:ff9b::808:808", "rfc6052"],
    ["64:ff9b:1::1", "rfc6052"],
    ["2002:7f00:1::", "6to4"],
    ["2002:808:808::1", "6to4"],
    ["2001:0:4136:e378::1", "teredo"],
    ["2001:db8::1", "reserved"],
    ["100::1", "discard"],
    ["2001:10::1", "deprecatedOrchid"],
    ["2001:20::1", "orchid2"],
    ["4000::1", "notGlobalUnicast"],
    ["fe80::1%eth0", "zoned"],
  ])("%s is not public (%s)", (ip, range) => {
    expect(addressRange(ip)).toBe(range);
    expect(isPublicAddress(ip)).toBe(false);
  });

  // Non-canonical IPv4 spellings are ambiguous between parsers: never public.
  it.each(["0177.0.0.1", "010.0.0.1", "0x7f.1", "127.1", "2130706433", "08.8.8.8", "1.2.3.256", "", "example.com", "[::1]", " 8.8.8.8", "8.8.8.8/32"])(
    "%j is not parsed as public",
    (ip) => {
      expect(addressRange(ip)).toBe("invalid");
      expect(isPublicAddress(ip)).toBe(false);
    },
  );
});
