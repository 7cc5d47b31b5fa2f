import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { attestationKeysVar } from "./scripts/attestation-key.mjs";
import { newHmacSecret, newLogKey, newLogSigningKeys, newWebhookSecretKey } from "./scripts/local-secrets.mjs";
import { copySwaggerUi } from "./scripts/swagger-ui.mjs";

// Run under Node against wrangler dev (npm run test:node) and in Chromium (npm run test:browser), not in workerd.
const NODE_SIDE = ["test/node/**", "test/browser/**"];
// Files whose tests read state every file of a shared runtime writes (see the projects below).
const FRESH = [
  "test/log/**/*.test.ts",
  "test/agent/credibility-take-up.test.ts",
  "test/routes/credibility-run.test.ts",
  "test/routes/form-b.test.ts",
  "test/routes/foundation.test.ts",
  "test/routes/model.test.ts",
  "test/routes/pruning.test.ts",
  "test/routes/retention.test.ts",
  "test/routes/sweep.test.ts",
];

export default defineConfig(async () => {
  copySwaggerUi(); // the static assets the /docs page loads (wrangler.toml [assets])
  const migrations = await readD1Migrations("./migrations");
  const shardMigrations = await readD1Migrations("./migrations-shard");
  return {
    plugins: [
      cloudflareTest({
        main: "./test/worker.ts",
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          // A scratch database for the test that migrates a pre-sharding database in place.
          d1Databases: ["MIGRATION_CHECK"],
          bindings: { TEST_MIGRATIONS: migrations, TEST_SHARD_MIGRATIONS: shardMigrations, ADMIN_TOKEN: "test-admin-token",
            RETURN_KEYS_IN_RESPONSES: "true",
            // The origin the tests' requests name (test/helpers.ts): the issuer and the logs' host.
            PUBLIC_ORIGIN: "http://trust.test",
            ATTESTATION_KEYS: attestationKeysVar("test-key-1"),
            WEBHOOK_SECRET_KEY: newWebhookSecretKey(),
            REPORTER_KEY: newHmacSecret(),
            LOG_KEY: newLogKey(),
            LOG_SIGNING_KEYS: newLogSigningKeys(),
            // Logs 0-7 (log 8 is unknown); the sequencer tests use objects of higher numbers directly.
            LOG_COUNT: "8",
          },
        },
      }),
    ],
    test: {
      // Two projects: most files share one local runtime (one Miniflare, started once: starting it
      // is about 4.7 s of a file's time here), since each makes its own operators and agents; the
      // files that need a fresh service get one each: the logs' trees and buckets, the credibility
      // snapshot and anchors, the admin lists, the sweep of every object and the daily cron.
      projects: [
        { extends: true as const, test: { name: "workerd", include: ["test/**/*.test.ts"], exclude: [...NODE_SIDE, ...FRESH], isolate: false } },
        { extends: true as const, test: { name: "workerd (a fresh service per file)", include: FRESH } },
      ],
      setupFiles: ["./test/setup.ts"],
      testTimeout: 30_000,
      // Work a test file leaves in the background (the local log queue's consumer handing leaves to a
      // sequencer, an object's alarm) can outlive the file; when its environment closes, a module load
      // that work was waiting on fails with EnvironmentTeardownError. That work belongs to no test (in
      // production it is retried); every other unhandled error still fails the run.
      onUnhandledError: (error: { name?: string; message?: string }) => (error.name === "EnvironmentTeardownError" || /Closing rpc while/.test(error.message ?? "") ? false : undefined),
    },
  };
});
