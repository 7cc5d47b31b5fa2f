// An agent's configuration, its canonical form and its fingerprint. Pure apart from crypto.subtle.

import { sha256Hex } from "./identifiers";

export interface AgentConfiguration {
  modelProvider: string;
  modelName: string;
  systemPromptHash: string | null;
  tools: string[];
  memoryConfig: Record<string, unknown> | null;
}

/**
 * JSON with object keys sorted at every depth, so equal values always give equal text. Array order is
 * kept (it can carry meaning inside memoryConfig). Keys whose value is undefined are dropped, as
 * JSON.stringify does, so a stored-and-reloaded value canonicalises the same as the original.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) {
    return `[${value.map((v) => (v === undefined ? "null" : canonicalJson(v))).join(",")}]`;
  }
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .filter((key) => record[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`);
    return `{${members.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** The tools as a set: order and duplicates carry no meaning. */
export function normalizedTools(tools: readonly string[] | null | undefined): string[] {
  return [...new Set(tools ?? [])].sort();
}

/**
 * Canonical JSON of a configuration: keys sorted recursively, tools sorted and de-duplicated, and a
 * missing systemPromptHash or memoryConfig written as null (missing and null mean the same).
 */
export function canonicalConfiguration(config: AgentConfiguration): string {
  return canonicalJson({
    modelProvider: config.modelProvider,
    modelName: config.modelName,
    systemPromptHash: config.systemPromptHash ?? null,
    tools: normalizedTools(config.tools),
    memoryConfig: config.memoryConfig ?? null,
  });
}

/** Lowercase hex SHA-256 of the canonical configuration. */
export async function fingerprint(config: AgentConfiguration): Promise<string> {
  return sha256Hex(canonicalConfiguration(config));
}

/** Most severe first: the order classifyChange reports changes in. */
export const CHANGE_TYPES = ["provider_change", "model_swap", "prompt_change", "tools_change", "memory_change"] as const;
export type ChangeType = (typeof CHANGE_TYPES)[number];

/**
 * What changed between two configurations, most severe first. A provider change subsumes a model
 * swap (a new provider's model name is bound to differ). Tools compare as sets, memoryConfig by
 * canonical JSON, and a missing systemPromptHash or memoryConfig equals null.
 */
export function classifyChange(previous: AgentConfiguration, next: AgentConfiguration): { changes: ChangeType[]; changeType: ChangeType | null } {
  const changes: ChangeType[] = [];
  if (previous.modelProvider !== next.modelProvider) changes.push("provider_change");
  else if (previous.modelName !== next.modelName) changes.push("model_swap");
  if ((previous.systemPromptHash ?? null) !== (next.systemPromptHash ?? null)) changes.push("prompt_change");
  if (canonicalJson(normalizedTools(previous.tools)) !== canonicalJson(normalizedTools(next.tools))) {
    changes.push("tools_change");
  }
  if (canonicalJson(previous.memoryConfig ?? null) !== canonicalJson(next.memoryConfig ?? null)) {
    changes.push("memory_change");
  }
  return { changes, changeType: changes[0] ?? null };
}
