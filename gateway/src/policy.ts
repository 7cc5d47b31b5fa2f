// The site's policy, read from the gateway's variables (gateway/wrangler.toml, gateway/README.md).

/** The variables that make the policy. */
export interface PolicyVars {
  TRUST_SERVICE: string;
  ORIGIN?: string;
  UNSIGNED?: string;
  INVALID?: string;
  REFUSE?: string;
  NONCES?: string;
  ON_NONCE_STORE_DOWN?: string;
  REFRESH_S?: string;
  MAX_STALE_S?: string;
  ON_STALE?: string;
}

/** What an agent is, as the gateway tells the origin: the status list wins over the attestation. */
export const STANDINGS = ["clear", "review", "caution", "suspended", "gone"] as const;
export type Standing = (typeof STANDINGS)[number];

export interface Policy {
  /** The trust service's origin: attestations' `iss`, where the JWKS and the status lists are. */
  service: string;
  origin: string | null;
  unsigned: "pass" | "refuse";
  invalid: "pass" | "refuse";
  refuse: Set<Standing>;
  /** Every signature's nonce is single use (the gateway's nonce store); off only where the policy says `NONCES = "off"`. */
  nonces: boolean;
  /** The nonce store cannot be reached: `closed` refuses signed requests (503), `open` admits them unchecked for replay. */
  onNonceStoreDown: "closed" | "open";
  refreshMs: number;
  maxStaleMs: number;
  onStale: "closed" | "open";
}

const seconds = (raw: string | undefined, fallback: number) => {
  const n = Number(raw ?? fallback);
  return (Number.isFinite(n) && n >= 0 ? n : fallback) * 1000;
};

/**
 * Replay protection is on unless the site writes `NONCES = "off"`: a missing or empty value keeps it,
 * and a value the gateway does not know is a misconfiguration rather than a silent off.
 */
function nonceRule(raw: string | undefined): boolean {
  const value = (raw ?? "").trim();
  if (value === "" || value === "required") return true;
  if (value === "off") return false;
  throw new Error(`NONCES must be "required" or "off", not ${JSON.stringify(raw)}`);
}

/** A variable with a closed set of values, the first the default. */
function oneOf<T extends string>(name: string, raw: string | undefined, values: readonly [T, ...T[]]): T {
  const value = (raw ?? "").trim();
  if (value === "") return values[0];
  if (!(values as readonly string[]).includes(value)) throw new Error(`${name} must be one of ${values.join(", ")}`);
  return value as T;
}

/** The policy; a misconfiguration throws (the gateway answers 500 rather than guess). */
export function policyOf(env: PolicyVars): Policy {
  let service: string;
  try {
    service = new URL(env.TRUST_SERVICE).origin;
  } catch {
    throw new Error("TRUST_SERVICE must be the trust service's URL");
  }
  const refuse = new Set((env.REFUSE ?? "suspended,gone").split(",").map((s) => s.trim()).filter(Boolean) as Standing[]);
  for (const standing of refuse) if (!STANDINGS.includes(standing)) throw new Error(`REFUSE: unknown standing ${standing}`);
  return {
    service,
    origin: env.ORIGIN ? new URL(env.ORIGIN).origin : null,
    unsigned: env.UNSIGNED === "refuse" ? "refuse" : "pass",
    invalid: env.INVALID === "pass" ? "pass" : "refuse",
    refuse,
    nonces: nonceRule(env.NONCES),
    onNonceStoreDown: oneOf("ON_NONCE_STORE_DOWN", env.ON_NONCE_STORE_DOWN, ["closed", "open"]),
    refreshMs: seconds(env.REFRESH_S, 300),
    maxStaleMs: seconds(env.MAX_STALE_S, 3600),
    onStale: env.ON_STALE === "open" ? "open" : "closed",
  };
}
