// The gateway's bindings and variables (gateway/wrangler.toml); the policy they say is src/policy.ts.
import type { PolicyVars } from "./policy";

export interface GatewayEnv extends PolicyVars {
  NONCE_STORE: DurableObjectNamespace<import("./nonces").NonceStore>;
}
