-- A typed MariaDB destination. happened_at is DATETIME(6): a TIMESTAMP
-- cannot hold 1970-01-01 00:00:00 UTC (its range starts one second later).
CREATE TABLE dst_typed (
  id          BIGINT PRIMARY KEY,
  label       TEXT,
  amount      DECIMAL(38,10),
  happened_at DATETIME(6),
  day         DATE,
  flag        BOOLEAN,
  big         BIGINT,
  ratio       DOUBLE,
  payload     BLOB,
  doc         JSON,
  long_text   LONGTEXT
);
