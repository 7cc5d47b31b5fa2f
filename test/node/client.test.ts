// The typed client in clients/typescript: its generated types are what `npm run client:generate`
// makes of the service's documents now, and they type a Form A score without any cast.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { ScoreA, TrustClient } from "../../clients/typescript";
import { CLIENT_DIR, generatedClient } from "../../scripts/generate-client.mjs";

describe("clients/typescript", () => {
  it("is what npm run client:generate makes of the service's documents (run it after changing a route or a payload)", async () => {
    const files = await generatedClient();
    expect(Object.keys(files).sort()).toEqual(["form-a.ts", "form-b.ts"]);
    for (const [name, text] of Object.entries(files)) {
      expect(readFileSync(join(CLIENT_DIR, name), "utf8") === text, `clients/typescript/${name} is out of date: npm run client:generate`).toBe(true);
    }
  });

  it("types GET /score/{sid}'s data as Form A's score", () => {
    const read = (client: TrustClient, sid: string) => client.GET("/score/{sid}", { params: { path: { sid } } });
    expectTypeOf<Awaited<ReturnType<typeof read>>["data"]>().toEqualTypeOf<ScoreA | undefined>();
    expectTypeOf<ScoreA["recommendation"]>().toEqualTypeOf<"clear" | "review" | "caution">();
  });
});
