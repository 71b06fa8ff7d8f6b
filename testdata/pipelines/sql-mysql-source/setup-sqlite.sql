-- A typed SQLite destination. amount and ubig are TEXT: with numeric
-- affinity SQLite itself would turn a 38-digit decimal, or an integer
-- above 2^63, into an 8-byte REAL.
CREATE TABLE dst_typed (
  id          INTEGER PRIMARY KEY,
  label       TEXT,
  amount      TEXT,
  happened_at TIMESTAMP,
  local_at    DATETIME,
  day         DATE,
  flag        BOOLEAN,
  big         INTEGER,
  ubig        TEXT,
  ratio       REAL,
  payload     BLOB,
  doc         JSON,
  long_text   TEXT
);
