// The Worker as the tests run it: the service's own entry, with the objects that carry the test
// hooks (test/agent-under-test.ts, test/log-sequencer-under-test.ts) bound under the production
// classes' names.
export { default, RateLimiter, StatusList } from "../src/index";
export { Agent } from "./agent-under-test";
export { LogSequencer } from "./log-sequencer-under-test";
