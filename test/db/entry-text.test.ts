// The shard's stored form of an entry's text (src/db/entry-text.ts): compressed on the shard, the
// same text everywhere it leaves, and rows from before it still read.

import { describe, expect, it } from "vitest";
import { DICTIONARY_V1, packText, unpackText } from "../../src/db/entry-text";
import { readEntries } from "../../src/db/history";
import { sha256HexOfBytes } from "../../src/domain/entries";
import { bearer, call, createOperator, registerAgent, shardOf } from "../helpers";

// A report's text and the row format 1 wrote for it when the form was made. Inflating is exact, so
// this fails if the dictionary is ever edited: rows already on the shards would read as garbage.
const WRITTEN_TEXT =
  '{"at":"2026-11-28T04:00:00.000Z","base":0.85,"damping":1,"evidence":1,"kind":"report","metadata":null,"n":7,"nonce":"8ec30caec4acc099f59ecad7bfb6625e",' +
  '"outcome":"success","penalty":1,"prev":"7b9e87e6638fe2c7bc7514325de55010c4b21e57c6d52daff7ee036b6db58061","receipt":false,' +
  '"reporter":"f35634428e9e4a6d82295ddab659789ed37d431131091e02d79f08a494be6997","score":{"composite":612,"financial":500,"quality":640,' +
  '"reliability":655,"security":500,"stability":598},"sid":"SID-0x58a25cbf8bcdc290","signals":{"quality":900},' +
  '"type":"5d48a313edabe1215ef14591aeb5619eb2595015ccf5a29543feed35b408cda3","v":1,"weight":0.85}';
const WRITTEN_ROW =
  "01a5d2c94d44410c00d18840dedbce8304da4b6731b98fb8c030c0171211d4a1dee315c417f237909faec0abebffc6accf313ec5507b4a7615441c8da9dd2b4f9a" +
  "91cedfc7ad8cf13566ec67a856d6521426ed51058492241c5d65add4fb9c35036c699dea60783dfeb01a8b904f8c6c6b270aedde691acb639a570b233242e000f5" +
  "8a03be2524c722d62f700ce9028ec9f35053bd8413fe04477d93561ecfeaa280af903e4a010f36b4c537234fef1c24d439281ab827d53026494301b5eae8a650e1" +
  "33d3ac29e0d59bbfd97a1773bb03";

const bytesOf = (hex: string) => Uint8Array.from(hex.match(/../g)!, (b) => parseInt(b, 16));
const sha256 = (text: string) => sha256HexOfBytes(new TextEncoder().encode(text));

async function agentWithReport() {
  const owner = await createOperator();
  const reporter = await createOperator({ verified: true });
  const { sid } = await registerAgent(owner.key);
  const res = await call("/transactions", {
    headers: bearer(reporter.key),
    body: { sid, transactionType: "delivery", outcome: "success", qualitySignal: 900, metadata: { order: "A-1" } },
  });
  expect(res.status).toBe(201);
  return { owner, sid, shard: await shardOf(sid) };
}

describe("an entry's stored form", () => {
  it("reads a row format 1 wrote, in any shape D1 hands back", () => {
    const row = bytesOf(WRITTEN_ROW);
    expect(unpackText(row)).toBe(WRITTEN_TEXT);
    expect(unpackText(Array.from(row))).toBe(WRITTEN_TEXT);
    expect(unpackText(row.slice().buffer)).toBe(WRITTEN_TEXT);
    expect(unpackText(packText(WRITTEN_TEXT))).toBe(WRITTEN_TEXT);
  });

  it("keeps the dictionary of format 1 byte for byte", async () => {
    // Matches reach into all of it, not only the report's shape the row above exercises: any edit
    // would misread the stored entries of other kinds (a new dictionary is a new format byte).
    expect(await sha256HexOfBytes(DICTIONARY_V1)).toBe("b7f2d2cf68d1cddaa3575732f5f0f401897b633ef135963f02c750ef8f263c2b");
  });

  it("keeps a text the BLOB would not shrink as the text itself", () => {
    expect(packText("{}")).toBe("{}");
    expect(packText(WRITTEN_TEXT)).toBeInstanceOf(Uint8Array);
  });

  it("stores a report's free text compressed, so a report with 1 KiB of metadata stays one row under the page's overflow size", async () => {
    const { owner, sid, shard } = await agentWithReport();
    const reporter = await createOperator({ verified: true });
    const metadata = { note: "delivered to the loading bay, signed by the night shift; ".repeat(18), order: "A-2" };
    expect(JSON.stringify(metadata).length).toBeGreaterThan(1000);
    const res = await call("/transactions", { headers: bearer(reporter.key), body: { sid, transactionType: "freight", outcome: "success", metadata } });
    expect(res.status).toBe(201);
    const row = (await shard
      .prepare("SELECT typeof(private) AS type, length(body) + length(private) + length(hash) + length(salt) AS size FROM entries WHERE sid = ? ORDER BY n DESC LIMIT 1")
      .bind(sid)
      .first<{ type: string; size: number }>())!;
    expect(row.type).toBe("blob");
    // A WITHOUT ROWID row keeps about 1,000 bytes in its page (4 KB pages); past that it spills a page.
    expect(row.size).toBeLessThan(900);
    const reports = (await readEntries(shard, sid)).filter((e) => e.kind === "report");
    expect(reports.at(-1)!.private).toEqual({ type: "freight", metadata });
    const listed = await (await call(`/agents/${sid}/transactions`, { headers: bearer(owner.key) })).text();
    expect(listed).toContain("freight");
  });

  it("refuses a form it does not know rather than guess", () => {
    const row = bytesOf(WRITTEN_ROW);
    row[0] = 2;
    expect(() => unpackText(row)).toThrow(RangeError);
  });

  it("stores a report's entry as a BLOB under half its text, and hands out the text its hash covers", async () => {
    const { owner, sid, shard } = await agentWithReport();
    const rows = (await shard.prepare("SELECT kind, typeof(body) AS type, length(body) AS size, hash FROM entries WHERE sid = ? ORDER BY n").bind(sid).all<{ kind: string; type: string; size: number; hash: string }>()).results;
    const stored = await readEntries(shard, sid);
    expect(rows.map((r) => r.type)).toEqual(rows.map(() => "blob"));
    const report = stored.findIndex((e) => e.kind === "report");
    expect(rows[report].size).toBeLessThan(stored[report].text.length / 2);
    for (const [i, e] of stored.entries()) expect(await sha256(e.text)).toBe(rows[i].hash);
    const listed = (await (await call(`/agents/${sid}/entries`, { headers: bearer(owner.key) })).json()) as { entries: { entry: string; hash: string }[] };
    expect(listed.entries.map((e) => e.entry)).toEqual(stored.map((e) => e.text));
  });

  it("still reads rows that hold their text, beside rows that hold the BLOB", async () => {
    const { owner, sid, shard } = await agentWithReport();
    const before = await readEntries(shard, sid);
    const report = before.find((e) => e.kind === "report")!;
    // The report's row as the service wrote it before this form.
    await shard.prepare("UPDATE entries SET body = ? WHERE sid = ? AND n = ?").bind(report.text, sid, report.n).run();
    const { type } = (await shard.prepare("SELECT typeof(body) AS type FROM entries WHERE sid = ? AND n = ?").bind(sid, report.n).first<{ type: string }>())!;
    expect(type).toBe("text");
    expect((await readEntries(shard, sid)).map((e) => e.text)).toEqual(before.map((e) => e.text));
    const page = (await (await call(`/report/${sid}`, { headers: bearer(owner.key) })).json()) as { score_history?: unknown[]; scoreHistory?: unknown[] };
    expect((page.score_history ?? page.scoreHistory)!.length).toBeGreaterThan(0);
    const listed = (await (await call(`/agents/${sid}/transactions`, { headers: bearer(owner.key) })).json()) as { transactions?: { transaction_type?: string; outcome: string }[] };
    expect(JSON.stringify(listed)).toContain("delivery");
  });
});
