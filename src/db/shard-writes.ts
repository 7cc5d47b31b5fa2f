// Every write to a shard (and the few to the control database) that an agent's object makes, as
// plain data first (the object journals them in its storage, so a crash between its commit and the
// batch loses nothing), then as statements, built here and only here. Each statement is idempotent:
// history rows are keyed by (sid, seq) and inserted once; the agent's row is written whole.

import { eq } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { AgentRecord, RecordedReport } from "../domain/agent";
import { contributionOf, scoreOfRecord } from "../domain/agent";
import { MODEL, type ChangeType, type ScoreView } from "../domain/model";
import { db, type Database } from "./client";
import { agentDirectory } from "./control-schema";
import { agents, configHistory, scoreEvents, transactions } from "./shard-schema";

export type ShardWrite =
  | { kind: "agent"; row: typeof agents.$inferInsert }
  | { kind: "transaction"; row: typeof transactions.$inferInsert }
  | { kind: "event"; row: typeof scoreEvents.$inferInsert }
  | { kind: "config"; row: typeof configHistory.$inferInsert }
  | { kind: "transactionStatus"; sid: string; id: number; status: "active" | "disputed" | "withdrawn" };

export type ControlWrite = { kind: "directoryOwner"; sid: string; operatorId: number | null };

/** The agent's whole row: its record, and its score as of `now` for lists and operator figures. */
export function agentRow(record: AgentRecord, now: number): ShardWrite {
  const score = scoreOfRecord(record, now);
  const independent = contributionOf(record, now);
  const c = record.config;
  return {
    kind: "agent",
    row: {
      sid: record.sid,
      num: record.num,
      operatorId: record.operatorId,
      name: record.name,
      description: record.description,
      status: record.status,
      modelProvider: c.modelProvider,
      modelName: c.modelName,
      systemPromptHash: c.systemPromptHash,
      tools: JSON.stringify(c.tools),
      memoryConfig: c.memoryConfig === null ? null : JSON.stringify(c.memoryConfig),
      fingerprint: record.fingerprint,
      configVersion: record.configVersion,
      lastConfigChangeAt: record.lastConfigChangeAt,
      identityLevel: record.identityLevel,
      identityKey: record.identityKey,
      claimTokenHash: null,
      evidence: JSON.stringify(record.evidence),
      modelVersion: MODEL.version,
      reporters: "{}",
      composite: score.composite,
      confidence: score.confidence,
      recommendation: score.recommendation,
      evidenceTotal: score.evidence,
      independentEvidence: independent.evidence,
      independentComposite: independent.composite,
      outcomeCounts: JSON.stringify(record.outcomes),
      seq: record.seq,
      createdAt: record.createdAt,
      updatedAt: record.updatedAt,
    },
  };
}

export function transactionRow(sid: string, t: RecordedReport, receipt: boolean): ShardWrite {
  return {
    kind: "transaction",
    row: {
      id: t.id,
      sid,
      seq: t.seq,
      reporterOperatorId: t.reporter,
      transactionType: t.transactionType,
      outcome: t.outcome,
      reliabilitySignal: t.signals.reliability ?? null,
      qualitySignal: t.signals.quality ?? null,
      financialSignal: t.signals.financial ?? null,
      securitySignal: t.signals.security ?? null,
      weight: t.weight,
      base: t.base,
      damping: t.damping,
      evidenceFactor: t.evidenceFactor,
      penalty: t.penalty,
      evidence: receipt ? "receipt" : "none",
      status: "active",
      metadata: t.metadata === null ? null : JSON.stringify(t.metadata),
      createdAt: new Date(t.at).toISOString(),
    },
  };
}

export function scoreEventRow(sid: string, seq: number, eventType: string, score: ScoreView, at: number, transactionId: number | null = null): ShardWrite {
  const d = score.dimensions;
  return {
    kind: "event",
    row: {
      sid,
      seq,
      eventType,
      transactionId,
      composite: score.composite,
      reliability: d.reliability,
      quality: d.quality,
      financial: d.financial,
      security: d.security,
      stability: d.stability,
      createdAt: new Date(at).toISOString(),
    },
  };
}

export function configRow(record: AgentRecord, seq: number, changes: ChangeType[], at: number): ShardWrite {
  return {
    kind: "config",
    row: {
      sid: record.sid,
      seq,
      fingerprint: record.fingerprint,
      modelProvider: record.config.modelProvider,
      modelName: record.config.modelName,
      changeType: changes[0] ?? null,
      changes: JSON.stringify(changes),
      createdAt: new Date(at).toISOString(),
    },
  };
}

/** The statements of pending shard writes, in order; an agent row superseded by a later one is skipped. */
export function shardStatements(d1: Database, writes: ShardWrite[]): BatchItem<"sqlite">[] {
  const d = db(d1);
  const lastAgent = writes.findLastIndex((w) => w.kind === "agent");
  const statements: BatchItem<"sqlite">[] = [];
  writes.forEach((w, i) => {
    switch (w.kind) {
      case "agent": {
        if (i !== lastAgent) return;
        const { sid: _sid, ...rest } = w.row;
        statements.push(d.insert(agents).values(w.row).onConflictDoUpdate({ target: agents.sid, set: rest }));
        return;
      }
      case "transaction":
        statements.push(d.insert(transactions).values(w.row).onConflictDoNothing());
        return;
      case "event":
        statements.push(d.insert(scoreEvents).values(w.row).onConflictDoNothing());
        return;
      case "config":
        statements.push(d.insert(configHistory).values(w.row).onConflictDoNothing());
        return;
      case "transactionStatus":
        statements.push(d.update(transactions).set({ status: w.status }).where(eq(transactions.id, w.id)));
    }
  });
  return statements;
}

export function controlStatements(d1: Database, writes: ControlWrite[]): BatchItem<"sqlite">[] {
  const d = db(d1);
  return writes.map((w) => d.update(agentDirectory).set({ operatorId: w.operatorId }).where(eq(agentDirectory.sid, w.sid)));
}
