import { defineConfig } from "drizzle-kit";

// The shard databases (bindings SHARD_0 ... SHARD_{N-1}).
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/shard-schema.ts",
  out: "./migrations-shard",
});
