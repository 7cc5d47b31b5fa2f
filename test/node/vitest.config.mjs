// The Node-side tests: the served OpenAPI documents linted, the typed client kept in sync, the
// example flow and the admin CLI run against the service under `wrangler dev`. `npm test` runs
// them last; `npm run test:node` alone.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: join(dirname(fileURLToPath(import.meta.url)), "..", ".."),
    include: ["test/node/**/*.test.ts"],
    environment: "node",
    globalSetup: ["test/node/setup.mjs"],
    // One at a time: a small machine, and the linters and the CLI are processes of their own.
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
