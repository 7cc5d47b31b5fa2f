// The entry each kind of change appends to the agent's chain (src/domain/entries.ts), with what its
// shard row keeps beside it: the operator it names, a report's status, its free text in clear and
// the salt of that text's hashes. One place for each entry's shape.

import type { EntryRow } from "./shard-writes";
import type { AgentRecord, RecordedReport } from "../domain/agent";
import { newSalt, saltedHash, scoreFace, type EntryBodies, type EntryDraft } from "../domain/entries";
import type { ChangeType, ScoreView } from "../domain/model";

/** An entry a change appends: the entry itself, the composite that followed it, and what its row keeps beside it. */
export interface EntryWrite {
  draft: EntryDraft;
  composite: number;
  row?: Pick<EntryRow, "operator" | "status" | "ref" | "salt" | "private">;
}

type Commit = (operatorId: number) => Promise<string>;

export async function registrationWrite(record: AgentRecord, score: ScoreView, at: number, commitment: Commit): Promise<EntryWrite> {
  const salt = newSalt();
  const body: EntryBodies["registration"] = {
    owner: record.operatorId === null ? null : await commitment(record.operatorId),
    fingerprint: record.fingerprint,
    name: await saltedHash(salt, "name", record.name),
    description: record.description === null ? null : await saltedHash(salt, "description", record.description),
    score: scoreFace(score),
  };
  return {
    draft: { kind: "registration", at, body },
    composite: score.composite,
    row: { operator: record.operatorId, salt, private: JSON.stringify({ name: record.name, description: record.description }) },
  };
}

export async function reportWrite(
  report: RecordedReport & { ref?: number },
  score: ScoreView,
  status: "active" | "disputed" | "withdrawn" = "active",
): Promise<EntryWrite> {
  const salt = newSalt();
  const body: EntryBodies["report"] = {
    reporter: report.key,
    outcome: report.outcome,
    signals: report.signals,
    receipt: report.receipt,
    type: await saltedHash(salt, "type", report.transactionType),
    metadata: report.metadata === null ? null : await saltedHash(salt, "metadata", JSON.stringify(report.metadata)),
    score: scoreFace(score),
  };
  return {
    draft: { kind: "report", at: report.at, body },
    composite: score.composite,
    row: {
      operator: report.reporter,
      status,
      ref: report.ref ?? null,
      salt,
      private: JSON.stringify({ type: report.transactionType, metadata: report.metadata }),
    },
  };
}

export const configWrite = (changes: ChangeType[], fingerprint: string, score: ScoreView, at: number): EntryWrite => ({
  draft: { kind: "config", at, body: { changes, fingerprint, score: scoreFace(score) } },
  composite: score.composite,
});

export const withdrawalWrite = (of: number, score: ScoreView, at: number): EntryWrite => ({
  draft: { kind: "withdrawal", at, body: { of, score: scoreFace(score) } },
  composite: score.composite,
});

/** A dispute's step that moves no score: opened, escalated to the admins, or resolved with the report kept. */
export const disputeWrite = (of: number, outcome: EntryBodies["dispute"]["outcome"], composite: number, at: number): EntryWrite => ({
  draft: { kind: "dispute", at, body: { of, outcome } },
  composite,
});

export const claimWrite = async (operatorId: number, composite: number, at: number, commitment: Commit): Promise<EntryWrite> => ({
  draft: { kind: "claim", at, body: { owner: await commitment(operatorId) } },
  composite,
  row: { operator: operatorId },
});

export const statusWrite = (status: string, composite: number, at: number): EntryWrite => ({ draft: { kind: "status", at, body: { status } }, composite });

export const identityWrite = (record: AgentRecord, composite: number, at: number): EntryWrite => ({
  draft: { kind: "identity", at, body: { level: record.identityLevel, key: record.identityKey, keys: record.keys.map((k) => k.thumbprint) } },
  composite,
});
