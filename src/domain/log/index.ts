// The transparency log's pure code: the Merkle tree and its proofs (RFC 9162), the C2SP tile layout,
// signed notes and checkpoints, the leaf. Shared by the service (the sequencer, the public reads)
// and by clients (clients/typescript/log.ts, the monitor).

export * from "./bytes";
export * from "./checkpoint";
export * from "./integrate";
export * from "./leaf";
export * from "./merkle";
export * from "./note";
export * from "./tiles";
export * from "./acceptance";
export * from "./messages";
export * from "./epochs";
