// Global setup of the Node-side tests: the service under `wrangler dev` (test/wrangler-dev.mjs).
import { startService } from "../wrangler-dev.mjs";

export default async function setup(project) {
  // Configured as `npm start` configures local development: webhooks may go to this machine.
  const { url, adminToken, stop } = await startService("node-test", { vars: { ALLOW_LOOPBACK_WEBHOOKS: "true" } });
  project.provide("service", { url, adminToken });
  return stop;
}
