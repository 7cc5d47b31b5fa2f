// Ties the runtime's typed `exports` (cloudflare:workers) to this Worker's main module.
declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import("./index");
    durableNamespaces: "AgentScorer" | "RateLimiter";
  }
}
