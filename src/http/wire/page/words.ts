// The public page's plain words: every code the score carries, said as a sentence a person reads.
// Each table is keyed by the domain's own vocabulary, so a new code without its words does not compile.
import { IDENTITY_LABELS } from "../../../domain/agent-keys";
import type { ScoreEventType } from "../../../domain/agent";
import type { DisputeStatus } from "../../../domain/disputes";
import { MODEL, type ChangeType, type Confidence, type Dimension, type Outcome, type ReasonCode, type Recommendation } from "../../../domain/model";

const LOW = MODEL.lowDimensionBelow;
const RECENT_DAYS = MODEL.recentConfigChangeMs / 86_400_000;

/** One sentence per reason code: why the score is not higher. */
export const REASON_WORDS: Record<ReasonCode, string> = {
  LOW_RELIABILITY: `Reliability is below ${LOW}: reporters say it often does not deliver what it was asked for.`,
  LOW_QUALITY: `Quality is below ${LOW}: reporters rated the quality of its work poorly.`,
  LOW_SECURITY: `Security is below ${LOW}: reporters were concerned about how it handles security.`,
  LOW_FINANCIAL: `Financial is below ${LOW}: reporters were concerned about how it handles money.`,
  LOW_STABILITY: `Stability is below ${LOW}: too many of its transactions ended in a failure, a timeout or an error.`,
  RECENT_FAILURES: "Several credible reporters saw it fail in the last two days; it cannot be rated clear until that stops.",
  SIMILAR_TO_CAUTIONED: "Its configuration is the same as that of another operator's agent rated caution.",
  RECENT_CONFIG_CHANGE: `Its configuration (provider, model, prompt, tools or memory) changed in the last ${RECENT_DAYS} days, so what it earned before counts for less.`,
  NO_OWNER: "No operator has claimed it, so nobody is accountable for it; it cannot be rated clear.",
  OPERATOR_RECORD: `The operator that owns it has a weak record across its agents (an operator score below ${MODEL.operatorRecordBelow}).`,
  FEW_INDEPENDENT_REPORTERS: `Fewer than ${MODEL.fewReportersBelow} operators other than its owner reported on it recently; it cannot be rated clear until more do.`,
  INSUFFICIENT_EVIDENCE: "There are still few reports about it, so the score may move a lot with the next ones.",
  IDENTITY_UNVERIFIED: "It has not proved its identity yet: neither the callback challenge nor a signature with a key its owner registered.",
};

export const RECOMMENDATION_WORDS: Record<Recommendation, { label: string; sentence: string }> = {
  clear: { label: "Clear", sentence: "The evidence supports dealing with this agent." },
  review: { label: "Review", sentence: "The evidence says neither yes nor no yet: limit what is at stake, or ask for more." },
  caution: { label: "Caution", sentence: "Several independent reporters agree that this agent performed badly." },
};

export const CONFIDENCE_WORDS: Record<Confidence, string> = {
  low: "Low: few reports, or from few independent operators.",
  medium: "Medium: a fair number of reports from several independent operators.",
  high: "High: many reports from many independent operators.",
};

const IDENTITY_SENTENCES = [
  "it has not proved its identity.",
  "its owner answered a challenge the service sent to the agent's own address.",
  "it proved, with a signature, that it holds a key its owner registered.",
] as const;

export const identityWords = (level: number) =>
  `Level ${level}, ${IDENTITY_LABELS[level as 0 | 1 | 2] ?? "Unknown"}: ${IDENTITY_SENTENCES[level as 0 | 1 | 2] ?? ""}`.trim();

export const DIMENSION_WORDS: Record<Dimension, { label: string; sentence: string }> = {
  reliability: { label: "Reliability", sentence: "Does it deliver what it was asked for?" },
  quality: { label: "Quality", sentence: "How good is its work?" },
  financial: { label: "Financial", sentence: "Does it handle money and amounts correctly?" },
  security: { label: "Security", sentence: "Does it handle data, credentials and permissions safely?" },
  stability: { label: "Stability", sentence: "How often do its transactions end well rather than in failures, timeouts or errors?" },
};

const OUTCOME_WORDS: Record<Outcome, string> = { success: "success", partial: "partial success", failure: "failure", timeout: "timeout", error: "error" };
const CHANGE_WORDS: Record<ChangeType, string> = {
  provider_change: "a new model provider",
  model_swap: "a new model",
  prompt_change: "a new system prompt",
  tools_change: "new tools",
  memory_change: "a new memory configuration",
};

/** What a score history entry records. */
export function eventWords(type: ScoreEventType): string {
  if (type.startsWith("transaction:")) return `A report: ${OUTCOME_WORDS[type.slice("transaction:".length) as Outcome]}`;
  if (type.startsWith("config_change:")) return `Configuration changed: ${CHANGE_WORDS[type.slice("config_change:".length) as ChangeType]}`;
  return "A disputed report was withdrawn";
}

export const DISPUTE_STATUS_WORDS: Record<Exclude<DisputeStatus, "resolved">, string> = {
  open: "waiting for the reporter's answer",
  escalated: "the reporter did not answer in time; the service's administrators decide",
};

/** `2026-11-21 10:20 UTC`: the same for every reader, whatever their locale. */
export const whenWords = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
