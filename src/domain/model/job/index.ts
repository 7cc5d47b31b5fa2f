// The cross-agent job's computation (docs/scoring.md, "Version 4: the cross-agent job").
export { agentRuns, emptyColumns, pushPair, type JobInput, type PairColumns } from "./columns";
export { ownerGraph, trustedOwners, type OwnerGraph, type TrustResult } from "./pagerank";
export { emptyAgeBreadth, emptyPassFacts, mergeAgeBreadth, mergePassFacts, shardAgeBreadth, shardPass, type AgeBreadth, type PassFacts } from "./passes";
export { computeCredibility, type CredibilitySnapshot } from "./run";
