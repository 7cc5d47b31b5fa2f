// Deployments from before sharding: the old database becomes the control database and shard 0, in
// place; its agents keep their history, their transaction ids and (replayed under the current
// model) their scores.
import { applyD1Migrations, runInDurableObject, type D1Migration } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { LEGACY_ID_CEILING, locateTransaction } from "../../src/domain/agent";
import type { Agent } from "../agent-under-test";
import { ADMIN, agentConfig, bearer, call, createOperator, freshIp, testApp } from "../helpers";

const migrations = env as unknown as { TEST_MIGRATIONS: D1Migration[]; TEST_SHARD_MIGRATIONS: D1Migration[]; MIGRATION_CHECK: D1Database };
const HOUR = 3_600_000;
const T0 = Date.parse("2026-06-01T08:00:00Z");

/** What the first version wrote for a report: its weight was base × 1/√(1+k). */
function v1Weight(base: number, k: number) {
  return base / Math.sqrt(1 + k);
}

describe("migrating a database from before sharding", () => {
  it("in place: its agents enter the directory on shard 0 numbered from 1024, their rows and ids kept", async () => {
    const db = migrations.MIGRATION_CHECK;
    const before = migrations.TEST_MIGRATIONS.filter((m) => /^000[0-2]_/.test(m.name));
    expect(before).toHaveLength(3);
    await applyD1Migrations(db, before);
    await db.batch([
      db.prepare("INSERT INTO operators (id, name, email, created_at) VALUES (7, 'Old', 'old@example.com', '2026-01-01T00:00:00.000Z')"),
      ...["SID-0x00000000000000a1", "SID-0x00000000000000a2"].map((sid, i) =>
        db.prepare(
          `INSERT INTO agents (sid, operator_id, name, model_provider, model_name, fingerprint, last_config_change_at, evidence, created_at, updated_at)
           VALUES (?, 7, 'Old agent', 'p', 'm', 'f', ?, '{}', ?, ?)`,
        ).bind(sid, `2026-01-0${i + 2}T00:00:00.000Z`, `2026-01-0${i + 2}T00:00:00.000Z`, `2026-01-0${i + 2}T00:00:00.000Z`),
      ),
      db.prepare("INSERT INTO transactions (id, sid, reporter_operator_id, transaction_type, outcome, weight, created_at) VALUES (41, 'SID-0x00000000000000a2', 7, 't', 'success', 0.25, '2026-01-03T00:00:00.000Z')"),
    ]);
    // The deployment's new migrations: the control database's, and the shards' (shard 0 is this database).
    await applyD1Migrations(db, migrations.TEST_MIGRATIONS);
    await applyD1Migrations(db, migrations.TEST_SHARD_MIGRATIONS, "d1_shard_migrations");
    const directory = await db.prepare("SELECT num, sid, shard, operator_id FROM agent_directory ORDER BY num").all();
    expect(directory.results).toEqual([
      { num: 1024, sid: "SID-0x00000000000000a1", shard: 0, operator_id: 7 },
      { num: 1025, sid: "SID-0x00000000000000a2", shard: 0, operator_id: 7 },
    ]);
    const row = await db.prepare("SELECT model_version, seq, confidence, independent_evidence FROM agents WHERE sid = 'SID-0x00000000000000a2'").first();
    expect(row).toEqual({ model_version: 1, seq: 0, confidence: "low", independent_evidence: 0 });
    expect(await db.prepare("SELECT status, evidence, seq FROM transactions WHERE id = 41").first()).toEqual({ status: "active", evidence: "none", seq: null });
    expect(locateTransaction(41)).toEqual({ legacy: true });
    // Applying them again changes nothing.
    await applyD1Migrations(db, migrations.TEST_MIGRATIONS);
    await applyD1Migrations(db, migrations.TEST_SHARD_MIGRATIONS, "d1_shard_migrations");
    expect((await db.prepare("SELECT count(*) AS n FROM agent_directory").first("n"))).toBe(2);
  });

  it("an agent from before sharding keeps its history and ids, and scores like a twin sent the same reports today", async () => {
    const owner = await createOperator();
    const reporters = [await createOperator({ verified: true }), await createOperator({ verified: true })];
    await call(`/admin/operators/${owner.id}`, { headers: ADMIN, body: { rate_limit_per_minute: 10000 } });
    for (const r of reporters) await call(`/admin/operators/${r.id}`, { headers: ADMIN, body: { rate_limit_per_minute: 10000 } });

    // The plan of reports: who, when, what.
    const plan = Array.from({ length: 12 }, (_, i) => ({
      reporter: i % 4 === 3 ? owner : reporters[i % 2],
      at: T0 + i * 5 * HOUR,
      outcome: i % 5 === 4 ? "failure" : "success",
      qualitySignal: 600 + i * 30,
    }));
    const swapAt = T0 + 32 * HOUR;

    // The legacy agent, as the first version left it on the old database (now shard 0).
    const sid = "SID-0x00000000000b00a1";
    const shard0 = env.SHARD_0;
    const created = new Date(T0 - HOUR).toISOString();
    const counts: Record<string, number> = {};
    for (const p of plan) counts[p.outcome] = (counts[p.outcome] ?? 0) + 1;
    const inserts = [
      shard0.prepare(
        `INSERT INTO agents (sid, operator_id, name, model_provider, model_name, system_prompt_hash, tools, memory_config, fingerprint,
           config_version, last_config_change_at, evidence, reporters, composite, outcome_counts, created_at, updated_at)
         VALUES (?, ?, 'Legacy', ?, 'claude-opus', ?, ?, ?, 'old-fingerprint', 2, ?, '{"dims":{},"at":0,"lastConfigChangeAt":null}', '{}', 612, ?, ?, ?)`,
      ).bind(sid, owner.id, agentConfig.modelProvider, agentConfig.systemPromptHash, JSON.stringify(agentConfig.tools), JSON.stringify(agentConfig.memoryConfig),
        new Date(swapAt).toISOString(), JSON.stringify(counts), created, new Date(plan[plan.length - 1].at).toISOString()),
      shard0.prepare("INSERT INTO config_history (sid, fingerprint, model_provider, model_name, change_type, created_at) VALUES (?, 'f0', 'anthropic', 'claude-sonnet', NULL, ?)").bind(sid, created),
      shard0.prepare("INSERT INTO config_history (sid, fingerprint, model_provider, model_name, change_type, created_at) VALUES (?, 'old-fingerprint', 'anthropic', 'claude-opus', 'model_swap', ?)").bind(sid, new Date(swapAt).toISOString()),
    ];
    const legacyIds: number[] = [];
    const recent = new Map<number, number[]>();
    plan.forEach((p, i) => {
      const earlier = (recent.get(p.reporter.id) ?? []).filter((t) => t > p.at - 24 * HOUR);
      recent.set(p.reporter.id, [...earlier, p.at]);
      const base = p.reporter === owner ? 0.25 : 1;
      const id = 9_000 + i;
      legacyIds.push(id);
      inserts.push(
        shard0.prepare(
          "INSERT INTO transactions (id, sid, reporter_operator_id, transaction_type, outcome, quality_signal, weight, created_at) VALUES (?, ?, ?, 't', ?, ?, ?, ?)",
        ).bind(id, sid, p.reporter.id, p.outcome, p.qualitySignal, v1Weight(base, earlier.length), new Date(p.at).toISOString()),
        shard0.prepare(
          "INSERT INTO score_events (sid, event_type, composite, reliability, quality, financial, security, stability, created_at) VALUES (?, ?, 500, 500, 500, 500, 500, 500, ?)",
        ).bind(sid, `transaction:${p.outcome}`, new Date(p.at).toISOString()),
      );
    });
    await shard0.batch(inserts);
    await env.DB.prepare("INSERT INTO agent_directory (num, sid, shard, operator_id, created_at) VALUES ((SELECT coalesce(max(num), 1023) + 1 FROM agent_directory), ?, 0, ?, ?)")
      .bind(sid, owner.id, created)
      .run();

    // Its twin, sent the same reports and the same model swap at the same instants, today.
    const h = testApp({ now: T0 - HOUR });
    const twin = (await (await h.request("/register", { headers: bearer(owner.key), body: { name: "Twin", ...agentConfig } })).json()) as { sid: string };
    for (const [i, p] of plan.entries()) {
      h.clock.now = p.at;
      if (p.at > swapAt && plan[i - 1].at <= swapAt) {
        h.clock.now = swapAt;
        expect((await h.request(`/agents/${twin.sid}/config`, { headers: bearer(owner.key), body: { ...agentConfig, modelName: "claude-opus" } })).status).toBe(200);
        h.clock.now = p.at;
      }
      const res = await h.request("/transactions", { headers: bearer(p.reporter.key), body: { sid: twin.sid, transactionType: "t", outcome: p.outcome, qualitySignal: p.qualitySignal } });
      expect(res.status).toBe(201);
    }

    h.clock.now = plan[plan.length - 1].at + HOUR;
    // The legacy agent's object moves into the chain and switches to the current model on this first
    // read: at the test's instant, as the twin's reports were, not at the machine's.
    await runInDurableObject(env.AGENT.getByName(sid), (o) => {
      (o as Agent).clock = () => h.clock.now;
    });
    const legacy = (await (await h.request(`/score/${sid}`, { headers: bearer(owner.key) })).json()) as Record<string, unknown>;
    const today = (await (await h.request(`/score/${twin.sid}`, { headers: bearer(owner.key) })).json()) as Record<string, unknown>;
    for (const field of ["composite_score", "reliability", "quality", "financial", "security", "stability", "confidence", "recommendation", "reasons"]) {
      expect(legacy[field], field).toEqual(today[field]);
    }
    // Replayed under the current model: version 3, once its switch time has passed (the tests set no shadow period).
    expect(await shard0.prepare("SELECT model_version FROM agents WHERE sid = ?").bind(sid).first("model_version")).toBe(3);

    // Its history and its ids are kept; a new report gets an id of the new kind, after the old ones.
    const listed = (await (await h.request(`/agents/${sid}/transactions?limit=200`, { headers: bearer(owner.key) })).json()) as { transactions: { transaction_id: number }[] };
    expect(listed.transactions.map((t) => t.transaction_id).sort((a, b) => a - b)).toEqual(legacyIds);
    const next = await h.request("/transactions", { headers: bearer(reporters[0].key), body: { sid, transactionType: "t", outcome: "success" } });
    const nextId = ((await next.json()) as { transaction_id: number }).transaction_id;
    expect(nextId).toBeGreaterThanOrEqual(LEGACY_ID_CEILING);
    const report = (await (await h.request(`/report/${sid}`, { headers: bearer(owner.key) })).json()) as { score_history: unknown[]; config_history: unknown[]; transaction_summary: { total: number } };
    // Twelve reports, the model swap (now an entry of the chain too) and the new report.
    expect(report.score_history).toHaveLength(14);
    expect(report.config_history).toHaveLength(2);
    expect(report.transaction_summary.total).toBe(13);
    expect((await h.request(`/score/${sid}/public`, { headers: { "cf-connecting-ip": freshIp() } })).status).toBe(200);
  });
});
