import { DurableObject } from "cloudflare:workers";
import { meterAlarm, metering } from "../d1-meter";
import type { AgentKey } from "../domain/agent-keys";
import type { AgentRef, AgentStatus } from "../domain/agent";
import type { Env } from "../env";
import { Disputes } from "./agent/disputes";
import { NO_PROBES, type Probes } from "./agent/host";
import { Identity } from "./agent/identity";
import { Kernel } from "./agent/kernel";
import { Model } from "./agent/model";
import { Profile, type ConfigInput, type RegistrationInput } from "./agent/profile";
import { Reports, type ReportInput } from "./agent/reports";
import { Retention, type ArchiveInput } from "./agent/retention";
import { Sweep } from "./agent/sweep";

export type { ConfigInput, RegistrationInput } from "./agent/profile";
export type { ReportInput } from "./agent/reports";
export type { Inherited } from "../db/model-steps";

/**
 * One object per agent (named by its SID): every change to the agent (its score, configuration,
 * owner, status, identity and disputes) passes through here, one at a time, and is committed to the
 * agent's shard, which is the record. This class is only the object's RPC face: the kernel
 * (./agent/kernel.ts) serialises, loads, commits and publishes; each feature module (./agent/*.ts)
 * decides what its changes are. docs/architecture.md walks through it.
 */
export class Agent extends DurableObject<Env> {
  protected readonly kernel: Kernel;
  private readonly reports: Reports;
  private readonly profile: Profile;
  private readonly identity: Identity;
  private readonly disputes: Disputes;
  private readonly retention: Retention;
  private readonly sweep: Sweep;

  constructor(ctx: DurableObjectState, env: Env, probes: Probes = NO_PROBES) {
    super(ctx, metering(env));
    const kernel = (this.kernel = new Kernel(ctx, this.env, probes));
    this.reports = new Reports(kernel);
    this.profile = new Profile(kernel);
    this.identity = new Identity(kernel);
    this.disputes = new Disputes(kernel);
    this.retention = new Retention(kernel);
    this.sweep = new Sweep(kernel, ctx.storage);
    kernel.upgrade = (loaded) => this.sweep.upgrade(loaded);
    kernel.timers.register([kernel.outbox.timer, this.disputes.timer, new Model(kernel).timer]);
  }

  register(ref: AgentRef, input: RegistrationInput) {
    return this.profile.register(ref, input);
  }
  reportTransaction(ref: AgentRef, input: ReportInput) {
    return this.reports.report(ref, input);
  }
  reportMany(ref: AgentRef, inputs: ReportInput[]) {
    return this.reports.reportMany(ref, inputs);
  }
  updateConfig(ref: AgentRef, input: ConfigInput) {
    return this.profile.updateConfig(ref, input);
  }
  claim(ref: AgentRef, input: { operatorId: number; claimTokenHash: string; now: number }) {
    return this.profile.claim(ref, input);
  }
  setStatus(ref: AgentRef, status: AgentStatus, now: number) {
    return this.profile.setStatus(ref, status, now);
  }
  inheritance(ref: AgentRef, now: number) {
    return this.profile.inheritance(ref, now);
  }
  statusFacts(ref: AgentRef, now: number) {
    return this.profile.statusFacts(ref, now);
  }
  setPublicProfile(ref: AgentRef, input: { callerId: number; publicProfile: boolean; now: number }) {
    return this.profile.setPublicProfile(ref, input);
  }

  addChallenge(ref: AgentRef, input: { tokenHash: string; expiresAt: number }) {
    return this.identity.addChallenge(ref, input);
  }
  voidChallenge(ref: AgentRef, tokenHash: string) {
    return this.identity.voidChallenge(ref, tokenHash);
  }
  confirmIdentity(ref: AgentRef, input: { callerId: number; tokenHash: string; now: number }) {
    return this.identity.confirmIdentity(ref, input);
  }
  addKeys(ref: AgentRef, input: { callerId: number; keys: AgentKey[]; directoryUrl: string | null; now: number }) {
    return this.identity.addKeys(ref, input);
  }
  listKeys(ref: AgentRef, callerId: number) {
    return this.identity.listKeys(ref, callerId);
  }
  removeKey(ref: AgentRef, input: { callerId: number; thumbprint: string; now: number }) {
    return this.identity.removeKey(ref, input);
  }
  issueNonce(ref: AgentRef, input: { callerId: number; nonce: string; expiresAt: number; now: number }) {
    return this.identity.issueNonce(ref, input);
  }
  signatureKeys(ref: AgentRef) {
    return this.identity.signatureKeys(ref);
  }
  spendNonce(ref: AgentRef, input: { nonce: string; expiresAt: number; now: number }) {
    return this.identity.spendNonce(ref, input);
  }
  refreshDirectory(ref: AgentRef, input: { url: string; keys: AgentKey[]; now: number }) {
    return this.identity.refreshDirectory(ref, input);
  }
  proveSignature(ref: AgentRef, input: { nonce: string; thumbprint: string; now: number }) {
    return this.identity.proveSignature(ref, input);
  }

  openDispute(ref: AgentRef, input: { callerId: number; transactionId: number; reason: string; statement: string | null; now: number }) {
    return this.disputes.open(ref, input);
  }
  answerDispute(ref: AgentRef, input: { callerId: number; disputeId: number; stand: boolean; note: string | null; now: number }) {
    return this.disputes.answer(ref, input);
  }
  decideDispute(ref: AgentRef, input: { disputeId: number; outcome: "withdraw" | "keep"; note: string | null; now: number }) {
    return this.disputes.decide(ref, input);
  }

  archiveHistory(ref: AgentRef, input: ArchiveInput) {
    return this.retention.archive(ref, input);
  }
  eraseText(ref: AgentRef, target: { n: number | null; ref: number | null } | null, now: number) {
    return this.retention.erase(ref, target, now);
  }

  /** The migration sweep's call (npm run admin -- migrate-objects): this agent on the record's contract, its storage empty. */
  migrate(ref: AgentRef) {
    return this.sweep.migrate(ref);
  }
  /** The daily reconciliation's call: the outbox sent again from entry `from` on (the log lacks it). */
  republish(ref: AgentRef, from: number) {
    return this.kernel.outbox.republish(ref, from);
  }

  override async alarm(): Promise<void> {
    meterAlarm(this.env, "do:AGENT alarm");
    const ref = this.kernel.ref ?? (await this.kernel.locate());
    if (ref) await this.kernel.timers.fire(() => this.kernel.exclusive(() => this.kernel.read(ref)), this.kernel.now());
  }
}
