import { DurableObject } from "cloudflare:workers";
import { meterAlarm, metering } from "../d1-meter";
import type { AgentKey } from "../domain/agent-keys";
import type { AgentRef, AgentStatus } from "../domain/agent";
import type { Dispute } from "../domain/disputes";
import type { Result } from "../domain/results";
import type { ConfigUpdated, Registration, TransactionRecorded } from "../domain/views";
import type { Env } from "../env";
import { Disputes } from "./agent/disputes";
import { Identity } from "./agent/identity";
import { NO_PROBES, type Probes } from "./agent/host";
import { Kernel } from "./agent/kernel";
import { Profile, type ConfigInput, type RegistrationInput } from "./agent/profile";
import { Reports, type ReportInput } from "./agent/reports";
import { Retention, type ArchiveInput, type Archived } from "./agent/retention";
import { Rollups } from "./agent/rollups";
import type { Inherited } from "./agent/model";

export type { ConfigInput, RegistrationInput } from "./agent/profile";
export type { ReportInput } from "./agent/reports";

/**
 * One object per agent (named by its SID): every change to the agent (its score, configuration,
 * owner, status, identity and disputes) passes through here, one at a time. This class is only the
 * object's RPC face: the kernel (./agent/kernel.ts) keeps the record, commits each change to the
 * object's own storage and then to the agent's shard, publishes events and runs the alarm; each
 * feature module (./agent/*.ts) decides what its changes are and owns its tables.
 */
export class Agent extends DurableObject<Env> {
  protected readonly kernel: Kernel;
  private readonly reports: Reports;
  private readonly profile: Profile;
  private readonly identity: Identity;
  private readonly disputes: Disputes;
  private readonly retention: Retention;

  constructor(ctx: DurableObjectState, env: Env, probes: Probes = NO_PROBES) {
    super(ctx, metering(env));
    this.kernel = new Kernel(ctx, this.env, probes);
    const rollups = new Rollups(this.kernel);
    this.reports = new Reports(this.kernel, rollups);
    this.profile = new Profile(this.kernel);
    this.identity = new Identity(this.kernel);
    this.disputes = new Disputes(this.kernel);
    this.retention = new Retention(this.kernel);
    this.kernel.start([this.reports, rollups, this.identity, this.disputes]);
  }

  register(ref: AgentRef, input: RegistrationInput): Promise<Result<Registration>> { return this.profile.register(ref, input); }
  reportTransaction(ref: AgentRef, input: ReportInput): Promise<Result<TransactionRecorded>> { return this.reports.report(ref, input); }
  reportMany(ref: AgentRef, inputs: ReportInput[], defer: boolean) { return this.reports.reportMany(ref, inputs, defer); }
  acknowledge(upTo: number, sent?: { after: number; to: number }, failed?: boolean): Promise<void> { return this.kernel.acknowledge(upTo, sent, failed); }
  updateConfig(ref: AgentRef, input: ConfigInput): Promise<Result<ConfigUpdated>> { return this.profile.updateConfig(ref, input); }
  claim(ref: AgentRef, input: { operatorId: number; claimTokenHash: string; now: number }): Promise<Result<{ sid: string }>> { return this.profile.claim(ref, input); }
  setStatus(ref: AgentRef, status: AgentStatus, now: number): Promise<Result<{ status: AgentStatus }>> { return this.profile.setStatus(ref, status, now); }
  sync(ref: AgentRef): Promise<Result<null>> { return this.profile.sync(ref); }
  inheritance(ref: AgentRef, now: number): Promise<Result<Inherited | null>> { return this.profile.inheritance(ref, now); }
  statusFacts(ref: AgentRef, now: number): Promise<Result<{ status: AgentStatus; recommendation: string; epoch: string; n: number }>> { return this.profile.statusFacts(ref, now); }
  setPublicProfile(ref: AgentRef, input: { callerId: number; publicProfile: boolean; now: number }): Promise<Result<{ publicProfile: boolean }>> { return this.profile.setPublicProfile(ref, input); }

  addChallenge(ref: AgentRef, input: { tokenHash: string; expiresAt: number }): Promise<Result<null>> { return this.identity.addChallenge(ref, input); }
  voidChallenge(ref: AgentRef, tokenHash: string): Promise<void> { return this.identity.voidChallenge(ref, tokenHash); }
  confirmIdentity(ref: AgentRef, input: { callerId: number; tokenHash: string; now: number }): Promise<Result<{ identityLevel: number }>> { return this.identity.confirmIdentity(ref, input); }
  addKeys(ref: AgentRef, input: { callerId: number; keys: AgentKey[]; directoryUrl: string | null; now: number }): Promise<Result<{ keys: AgentKey[]; identityKey: string | null }>> { return this.identity.addKeys(ref, input); }
  listKeys(ref: AgentRef, callerId: number): Promise<Result<{ keys: AgentKey[]; identityKey: string | null }>> { return this.identity.listKeys(ref, callerId); }
  removeKey(ref: AgentRef, input: { callerId: number; thumbprint: string; now: number }): Promise<Result<{ identityLevel: number; identityKey: string | null }>> { return this.identity.removeKey(ref, input); }
  issueNonce(ref: AgentRef, input: { callerId: number; nonce: string; expiresAt: number; now: number }): Promise<Result<null>> { return this.identity.issueNonce(ref, input); }
  signatureKeys(ref: AgentRef): Promise<Result<{ keys: AgentKey[]; directories: Record<string, number> }>> { return this.identity.signatureKeys(ref); }
  spendNonce(ref: AgentRef, input: { nonce: string; expiresAt: number; now: number }): Promise<Result<null>> { return this.identity.spendNonce(ref, input); }
  refreshDirectory(ref: AgentRef, input: { url: string; keys: AgentKey[]; now: number }): Promise<Result<null>> { return this.identity.refreshDirectory(ref, input); }
  proveSignature(ref: AgentRef, input: { nonce: string; thumbprint: string; now: number }): Promise<Result<{ identityLevel: number; identityKey: string }>> { return this.identity.proveSignature(ref, input); }

  openDispute(ref: AgentRef, input: { callerId: number; transactionId: number; reason: string; statement: string | null; now: number }): Promise<Result<Dispute>> { return this.disputes.open(ref, input); }
  answerDispute(ref: AgentRef, input: { callerId: number; disputeId: number; stand: boolean; note: string | null; now: number }): Promise<Result<Dispute>> { return this.disputes.answer(ref, input); }
  decideDispute(ref: AgentRef, input: { disputeId: number; outcome: "withdraw" | "keep"; note: string | null; now: number }): Promise<Result<Dispute>> { return this.disputes.decide(ref, input); }

  archiveHistory(ref: AgentRef, input: ArchiveInput): Promise<Result<Archived>> { return this.retention.archive(ref, input); }
  eraseText(ref: AgentRef, target: { n: number | null; ref: number | null } | null, now: number): Promise<Result<{ found: boolean; erased: number }>> { return this.retention.erase(ref, target, now); }

  override alarm(): Promise<void> {
    meterAlarm(this.env, "do:AGENT alarm");
    return this.kernel.alarm();
  }
}
