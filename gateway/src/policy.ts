// The site's policy, read from the gateway's variables (gateway/wrangler.toml, gateway/README.md).

/** The variables that make the policy. */
export interface PolicyVars {
  TRUST_SERVICE: string;
  ORIGIN?: string;
  UNSIGNED?: string;
  INVALID?: string;
  REFUSE?: string;
  NONCES?: string;
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
  nonces: boolean;
  refreshMs: number;
  maxStaleMs: number;
  onStale: "closed" | "open";
}

const seconds = (raw: string | undefined, fallback: number) => {
  const n = Number(raw ?? fallback);
  return (Number.isFinite(n) && n >= 0 ? n : fallback) * 1000;
};

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
    nonces: env.NONCES === "required",
    refreshMs: seconds(env.REFRESH_S, 300),
    maxStaleMs: seconds(env.MAX_STALE_S, 3600),
    onStale: env.ON_STALE === "open" ? "open" : "closed",
  };
}
