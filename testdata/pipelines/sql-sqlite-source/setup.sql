-- The SQLite source table: every type that tends to break a tool.
-- Timestamps are text with three different offsets; amount is TEXT, the
-- only way SQLite keeps a 38-digit decimal exact.
CREATE TABLE typed (
  id          INTEGER PRIMARY KEY,
  label       TEXT,
  amount      TEXT,
  happened_at TIMESTAMP,
  day         DATE,
  flag        BOOLEAN,
  big         INTEGER,
  ratio       REAL,
  payload     BLOB,
  doc         JSON,
  long_text   TEXT
);
INSERT INTO typed (id, label, amount, happened_at, day, flag, big, ratio, payload, doc) VALUES
  (1, 'plain', '9999999999999999999999999999.9999999999', '2024-03-10 01:30:00-08:00', '2024-02-29', 1,
   9007199254740993, 0.1, x'00ff0a0d09', '{"a": [1, [2, 3], {"b": []}], "s": "ü", "n": null}'),
  (2, 'Zürich — 東京 🚀 👩‍👩‍👧 "quoted", comma, tab' || char(9) || 'here', '-0.0000000001', '2024-06-30T23:59:59.999999+05:30', '1999-12-31', 0,
   -9223372036854775808, -1.5e-7, x'', '[[], [[1]], {"k": [true, false, null]}]'),
  (3, '', '0.0000000000', '1970-01-01T00:00:00Z', '0001-01-01', 0,
   9223372036854775807, 1e300, x'5c6e', '{}'),
  (4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
-- 100 000 bytes, 85 000 characters.
INSERT INTO typed (id, label, long_text) VALUES (5, 'long', replace(hex(zeroblob(5000)), '00', '0123456789abcdef🚀'));
