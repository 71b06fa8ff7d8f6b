-- A typed SQLite destination. amount is TEXT: a NUMERIC or DECIMAL column
-- has numeric affinity, and SQLite itself turns a 38-digit decimal into an
-- 8-byte REAL.
CREATE TABLE dst_typed (
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
