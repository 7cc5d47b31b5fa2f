// The gateway's policy as read from its variables (gateway/src/policy.ts): replay protection is on
// unless the site writes NONCES = "off", and an unreachable nonce store fails closed unless it writes
// ON_NONCE_STORE_DOWN = "open"; a value the gateway does not know is an error, never a quiet default.
import { describe, expect, it } from "vitest";
import { policyOf } from "../../gateway/src/policy";

const base = { TRUST_SERVICE: "https://trust.example.com" };

describe("the gateway's policy", () => {
  it("requires single-use nonces and refuses when their store is down, unless the site writes otherwise", () => {
    expect(policyOf(base)).toMatchObject({ nonces: true, onNonceStoreDown: "closed" });
    expect(policyOf({ ...base, NONCES: "", ON_NONCE_STORE_DOWN: "" })).toMatchObject({ nonces: true, onNonceStoreDown: "closed" });
    expect(policyOf({ ...base, NONCES: "required" }).nonces).toBe(true);
    expect(policyOf({ ...base, NONCES: "off" }).nonces).toBe(false);
    expect(policyOf({ ...base, ON_NONCE_STORE_DOWN: "open" }).onNonceStoreDown).toBe("open");
  });

  it("takes no misspelt value for a quiet default", () => {
    for (const NONCES of ["of", "false", "none", "OFF"]) expect(() => policyOf({ ...base, NONCES }), NONCES).toThrow(/NONCES must be/);
    expect(() => policyOf({ ...base, ON_NONCE_STORE_DOWN: "pass" })).toThrow(/ON_NONCE_STORE_DOWN must be one of closed, open/);
  });
});
