import { describe, expect, it } from "vitest";
import { canonicalConfiguration, canonicalJson, classifyChange, fingerprint, type AgentConfiguration } from "../../src/domain/configuration";

const base: AgentConfiguration = {
  modelProvider: "openai",
  modelName: "gpt-4o",
  systemPromptHash: "abc123",
  tools: ["web", "search"],
  memoryConfig: { z: { y: null, x: 1 }, a: [3, 1] },
};

// Pinned so an accidental change to the canonical form (and so to every stored fingerprint) fails here.
const BASE_CANONICAL =
  '{"memoryConfig":{"a":[3,1],"z":{"x":1,"y":null}},"modelName":"gpt-4o","modelProvider":"openai",' +
  '"systemPromptHash":"abc123","tools":["search","web"]}';
const BASE_FINGERPRINT = "687f172cb22bd832bf006d1538afc06b58fd6074b9d7b884b5cd6dfc4f0266f6";

describe("canonicalJson", () => {
  it("sorts object keys at every depth and keeps array order", () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: "x" } })).toBe('{"a":{"c":"x","d":[2,1]},"b":1}');
  });

  it("drops undefined members like JSON.stringify and writes primitives as JSON", () => {
    expect(canonicalJson({ a: undefined, b: null, c: "é\"" })).toBe('{"b":null,"c":"é\\""}');
    expect(canonicalJson([undefined, 1])).toBe("[null,1]");
    expect(canonicalJson(null)).toBe("null");
  });
});

describe("canonicalConfiguration", () => {
  it("sorts keys recursively and sorts the tools", () => {
    expect(canonicalConfiguration(base)).toBe(BASE_CANONICAL);
  });

  it("de-duplicates tools", () => {
    expect(canonicalConfiguration({ ...base, tools: ["web", "search", "web", "search"] })).toBe(BASE_CANONICAL);
  });

  it("writes a missing systemPromptHash and memoryConfig as null", () => {
    const missing = { modelProvider: "a", modelName: "b", tools: [] } as unknown as AgentConfiguration;
    const explicit: AgentConfiguration = { modelProvider: "a", modelName: "b", systemPromptHash: null, tools: [], memoryConfig: null };
    expect(canonicalConfiguration(missing)).toBe(canonicalConfiguration(explicit));
    expect(canonicalConfiguration(explicit)).toBe(
      '{"memoryConfig":null,"modelName":"b","modelProvider":"a","systemPromptHash":null,"tools":[]}',
    );
  });

  it("ignores fields that are not part of the configuration", () => {
    const extra = { ...base, name: "my agent" } as AgentConfiguration;
    expect(canonicalConfiguration(extra)).toBe(BASE_CANONICAL);
  });
});

describe("fingerprint", () => {
  it("is the lowercase hex SHA-256 of the canonical configuration", async () => {
    expect(await fingerprint(base)).toBe(BASE_FINGERPRINT);
  });

  it("is stable under tools order, duplicate tools and memoryConfig key order", async () => {
    const reordered: AgentConfiguration = {
      memoryConfig: { a: [3, 1], z: { x: 1, y: null } },
      tools: ["search", "web", "web"],
      systemPromptHash: "abc123",
      modelName: "gpt-4o",
      modelProvider: "openai",
    };
    expect(await fingerprint(reordered)).toBe(BASE_FINGERPRINT);
  });

  it("changes when any part of the configuration changes", async () => {
    const variants: AgentConfiguration[] = [
      { ...base, modelProvider: "anthropic" },
      { ...base, modelName: "gpt-4o-mini" },
      { ...base, systemPromptHash: null },
      { ...base, tools: ["web"] },
      { ...base, memoryConfig: { ...base.memoryConfig, a: [1, 3] } },
      { ...base, memoryConfig: null },
    ];
    const prints = await Promise.all(variants.map(fingerprint));
    expect(new Set([BASE_FINGERPRINT, ...prints]).size).toBe(variants.length + 1);
  });
});

describe("classifyChange", () => {
  const config: AgentConfiguration = {
    modelProvider: "openai",
    modelName: "gpt-4o",
    systemPromptHash: "p1",
    tools: ["search", "web"],
    memoryConfig: { kind: "vector", size: 10 },
  };

  it("finds nothing in an identical configuration", () => {
    expect(classifyChange(config, { ...config })).toEqual({ changes: [], changeType: null });
  });

  it("reports a provider change once, even though the model name differs too", () => {
    expect(classifyChange(config, { ...config, modelProvider: "anthropic", modelName: "claude" }))
      .toEqual({ changes: ["provider_change"], changeType: "provider_change" });
    expect(classifyChange(config, { ...config, modelProvider: "azure" }).changes).toEqual(["provider_change"]);
  });

  it("reports a model swap within one provider", () => {
    expect(classifyChange(config, { ...config, modelName: "gpt-4o-mini" })).toEqual({ changes: ["model_swap"], changeType: "model_swap" });
  });

  it("reports a prompt change, with null and missing equal", () => {
    expect(classifyChange(config, { ...config, systemPromptHash: "p2" }).changeType).toBe("prompt_change");
    const noPrompt = { ...config, systemPromptHash: null };
    const missingPrompt = { ...config, systemPromptHash: undefined } as unknown as AgentConfiguration;
    expect(classifyChange(noPrompt, missingPrompt).changes).toEqual([]);
    expect(classifyChange(config, noPrompt).changes).toEqual(["prompt_change"]);
  });

  it("compares tools as sets", () => {
    expect(classifyChange(config, { ...config, tools: ["web", "search", "web"] }).changes).toEqual([]);
    expect(classifyChange(config, { ...config, tools: ["web"] }).changes).toEqual(["tools_change"]);
    expect(classifyChange(config, { ...config, tools: ["search", "web", "shell"] }).changes).toEqual(["tools_change"]);
  });

  it("compares memoryConfig by canonical JSON, with null and missing equal", () => {
    expect(classifyChange(config, { ...config, memoryConfig: { size: 10, kind: "vector" } }).changes).toEqual([]);
    expect(classifyChange(config, { ...config, memoryConfig: { kind: "vector", size: 20 } }).changes).toEqual(["memory_change"]);
    const noMemory = { ...config, memoryConfig: null };
    const missingMemory = { ...config, memoryConfig: undefined } as unknown as AgentConfiguration;
    expect(classifyChange(noMemory, missingMemory).changes).toEqual([]);
    expect(classifyChange(config, noMemory).changes).toEqual(["memory_change"]);
  });

  it("lists several changes most severe first", () => {
    const next: AgentConfiguration = { modelProvider: "anthropic", modelName: "claude", systemPromptHash: "p2", tools: [], memoryConfig: null };
    expect(classifyChange(config, next)).toEqual({
      changes: ["provider_change", "prompt_change", "tools_change", "memory_change"],
      changeType: "provider_change",
    });
    expect(classifyChange(config, { ...config, modelName: "o3", tools: [] }).changes).toEqual(["model_swap", "tools_change"]);
  });

  it("detects a change exactly when the canonical configuration differs", () => {
    const variants: AgentConfiguration[] = [
      config,
      { ...config, tools: ["web", "search"] },
      { ...config, modelName: "x" },
      { ...config, memoryConfig: {} },
      { ...config, memoryConfig: null },
      { ...config, systemPromptHash: null },
    ];
    for (const a of variants) {
      for (const b of variants) {
        const differs = canonicalConfiguration(a) !== canonicalConfiguration(b);
        expect(classifyChange(a, b).changes.length > 0).toBe(differs);
      }
    }
  });
});
