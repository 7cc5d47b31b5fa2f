-- Rows shaped like the service's agents (a primary-key text id and a JSON payload of similar size),
-- and an append-only event table like its transactions / score_events.
CREATE TABLE items (
  id TEXT PRIMARY KEY NOT NULL,
  name TEXT NOT NULL,
  payload TEXT NOT NULL,
  counter INTEGER DEFAULT 0 NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE TABLE events (
  id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL,
  item_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  value REAL NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX events_item ON events (item_id, id);
-- 100 items: item-0 .. item-99.
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 99)
INSERT INTO items (id, name, payload, updated_at)
SELECT 'item-' || i, 'Item ' || i,
  '{"dims":{"reliability":{"alpha":3,"beta":3},"quality":{"alpha":3,"beta":3},"financial":{"alpha":3,"beta":3},"security":{"alpha":3,"beta":3},"stability":{"alpha":3,"beta":3}},"at":0,"lastConfigChangeAt":null}',
  '2026-01-01T00:00:00.000Z'
FROM n;
