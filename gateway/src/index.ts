// The gateway Worker's entry: the handler (src/gateway.ts) and the nonce store's class.
import type { GatewayEnv } from "./env";
import { handle } from "./gateway";

export { NonceStore } from "./nonces";

export default {
  fetch: (request, env) => handle(request, env, { fetch: (input, init) => fetch(input, init), now: Date.now }),
} satisfies ExportedHandler<GatewayEnv>;
