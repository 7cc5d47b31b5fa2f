// The scoring model the service serves: version 4 (./model-v4, docs/scoring.md). One model: every
// agent is scored by it from its registration (or from its `model` entry, for an agent that was on
// an earlier version).

export * from "./model-v4";
export { MODEL_V4 as MODEL } from "./model-v4";
