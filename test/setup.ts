import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";

await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
for (const shard of [env.SHARD_0, env.SHARD_1!]) await applyD1Migrations(shard, env.TEST_SHARD_MIGRATIONS, "d1_shard_migrations");
