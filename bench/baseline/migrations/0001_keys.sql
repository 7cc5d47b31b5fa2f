-- The fuller baseline's API keys (like the service's api_keys: found by the SHA-256 of the key).
-- One key, "bench-baseline-key", stored by its hash; scripts/bench.mjs presents it.
CREATE TABLE api_keys (
  key_hash TEXT PRIMARY KEY NOT NULL,
  operator_id INTEGER NOT NULL,
  scopes TEXT NOT NULL,
  revoked_at TEXT
);
INSERT INTO api_keys (key_hash, operator_id, scopes)
VALUES ('38c489ca1ae0116e861bf335a57e89845f1919d21e1763d1ce105dbe3e55a656', 1, '["report","read"]');
