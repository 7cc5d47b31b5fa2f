import { env } from "cloudflare:test";
import { beforeEach, describe, expect, it } from "vitest";
import { meterReading, metering, resetMeter, tableReading, writtenTable } from "../src/d1-meter";

// The scratch database of the migration test; these tables are this file's own.
const scratch = env.MIGRATION_CHECK;

describe("the D1 meter's writes per table", () => {
  beforeEach(async () => {
    await scratch.batch([
      scratch.prepare("DROP TABLE IF EXISTS meter_items"),
      scratch.prepare("DROP TABLE IF EXISTS meter_events"),
      scratch.prepare("CREATE TABLE meter_items (id TEXT PRIMARY KEY NOT NULL, n INTEGER NOT NULL) WITHOUT ROWID"),
      scratch.prepare("CREATE TABLE meter_events (id INTEGER PRIMARY KEY, item TEXT NOT NULL, v INTEGER NOT NULL)"),
      scratch.prepare("CREATE INDEX meter_events_item ON meter_events (item, v)"),
      scratch.prepare("INSERT INTO meter_items (id, n) VALUES ('a', 0), ('b', 0)"),
    ]);
    resetMeter();
  });

  it("names the table each kind of write statement writes", () => {
    expect(writtenTable("INSERT INTO entries (sid, n) VALUES (?, ?)")).toBe("entries");
    expect(writtenTable('insert into "pairs" ("sid") values (?) on conflict do update set x = 1')).toBe("pairs");
    expect(writtenTable("INSERT OR IGNORE INTO `rollups` VALUES (?)")).toBe("rollups");
    expect(writtenTable("UPDATE agents SET seq = ? WHERE sid = ? AND seq = ?")).toBe("agents");
    expect(writtenTable('delete from "score_events" where "sid" = ?')).toBe("score_events");
    expect(writtenTable("WITH t(x) AS (SELECT 1) INSERT INTO entries SELECT * FROM t")).toBe("entries");
    expect(writtenTable("SELECT * FROM agents WHERE sid = ?")).toBeNull();
  });

  it("counts a batch's rows per table, index rows apart from the rows themselves, one batch per table", async () => {
    const db = metering({ DB: scratch, D1_METER: "true" }).DB;
    await db.batch([
      db.prepare("INSERT INTO meter_events (item, v) VALUES (?, ?)").bind("a", 1),
      db.prepare("INSERT INTO meter_events (item, v) VALUES (?, ?)").bind("a", 2),
      db.prepare("UPDATE meter_items SET n = n + 1 WHERE id = ?").bind("a"),
    ]);
    await db.prepare("UPDATE meter_items SET n = n + 1 WHERE id IN ('a', 'b')").run();
    await db.prepare("SELECT * FROM meter_items").all();
    // A batch that wrote nothing (an update that matched no row) commits nothing to the table.
    await db.batch([db.prepare("UPDATE meter_items SET n = 0 WHERE id = ?").bind("none")]);

    const t = tableReading().DB;
    // Two inserts, each its row and its index row; changes count the rows alone.
    expect(t.meter_events).toEqual({ batches: 1, statements: 2, rowsWritten: 4, changes: 2 });
    // One batch and one lone statement: 1 + 2 rows of a table without an index.
    expect(t.meter_items).toEqual({ batches: 2, statements: 3, rowsWritten: 3, changes: 3 });
    expect(Object.keys(t)).toEqual(["meter_events", "meter_items"]);
    expect(meterReading().DB).toMatchObject({ batches: 2, statements: 6 });
    resetMeter();
    expect(tableReading()).toEqual({});
  });
});
