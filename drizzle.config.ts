import { defineConfig } from "drizzle-kit";

// The control database (binding DB). Shards: drizzle.shard.config.ts.
export default defineConfig({
  dialect: "sqlite",
  schema: ["./src/db/control-schema.ts", "./src/db/legacy-schema.ts"],
  out: "./migrations",
});
