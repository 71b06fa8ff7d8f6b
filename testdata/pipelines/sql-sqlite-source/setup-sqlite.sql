-- A typed destination (in its own file) with the source's own column types.
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
