// The scoring model's entry point. The service serves version 2 until its model switch, so the names
// the rest of the code imports from here are version 2's (./model-v2, frozen); version 3 lives in
// ./model/ and is reachable here as the namespace `v3` (or directly from ./model/index). At the switch
// this file re-exports version 3 instead.

export * from "./model-v2";
export * as v3 from "./model/index";
