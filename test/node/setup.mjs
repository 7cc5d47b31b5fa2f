// Global setup of the Node-side tests: the service under `wrangler dev` (test/wrangler-dev.mjs).
import { startService } from "../wrangler-dev.mjs";

export default async function setup(project) {
  const { url, adminToken, stop } = await startService("node-test");
  project.provide("service", { url, adminToken });
  return stop;
}
