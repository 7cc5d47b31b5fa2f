// Under CI a missing Chromium is a failure, not a reason to skip the browser tests.
import { describe, expect, it } from "vitest";
import { service } from "./chromium.mjs";

describe.skipIf(!service)("Chromium", () => {
  it("is there to drive the browser tests", () => {
    expect(service.missing).toBeUndefined();
  });
});
