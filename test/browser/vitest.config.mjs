// The browser tests: Node-side vitest (not workerd) driving Chromium against the service under
// `wrangler dev`. `npm test` runs them after the workerd tests; `npm run test:browser` alone.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: join(dirname(fileURLToPath(import.meta.url)), "..", ".."),
    include: ["test/browser/**/*.test.mjs"],
    environment: "node",
    globalSetup: ["test/browser/service.mjs"],
    fileParallelism: false, // one Chromium at a time on a small machine
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
