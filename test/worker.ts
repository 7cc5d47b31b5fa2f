// The Worker as the tests run it: the service's own entry, with the agent's object that carries the
// test hooks (test/agent-under-test.ts) bound under the production class's name.
export { default, RateLimiter, StatusList } from "../src/index";
export { Agent } from "./agent-under-test";
