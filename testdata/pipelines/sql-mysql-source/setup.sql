-- The MariaDB source table: every type that tends to break a tool. The
-- TIMESTAMP values are written from three session time zones; DATETIME
-- has no zone and keeps what was written.
SET time_zone = '-08:00';
CREATE TABLE typed (
  id          BIGINT PRIMARY KEY,
  label       TEXT,
  amount      DECIMAL(38,10),
  happened_at TIMESTAMP(6) NULL,
  local_at    DATETIME(6),
  day         DATE,
  flag        BOOLEAN,
  big         BIGINT,
  ubig        BIGINT UNSIGNED,
  ratio       DOUBLE,
  payload     BLOB,
  doc         JSON,
  long_text   LONGTEXT
);
INSERT INTO typed (id, label, amount, happened_at, local_at, day, flag, big, ubig, ratio, payload, doc) VALUES
  (1, 'plain', 9999999999999999999999999999.9999999999, '2024-03-10 01:30:00', '2024-03-10 01:30:00', '2024-02-29', TRUE,
   9007199254740993, 18446744073709551615, 0.1, X'00FF0A0D09', '{"a": [1, [2, 3], {"b": []}], "s": "ü", "n": null}');
SET time_zone = '+05:30';
INSERT INTO typed (id, label, amount, happened_at, local_at, day, flag, big, ubig, ratio, payload, doc) VALUES
  (2, 'Zürich — 東京 🚀 👩‍👩‍👧 "quoted", comma, tab\there', -0.0000000001, '2024-06-30 23:59:59.999999', '2024-06-30 23:59:59.999999', '1999-12-31', FALSE,
   -9223372036854775808, 0, -1.5e-7, X'', '[[], [[1]], {"k": [true, false, null]}]');
SET time_zone = '+00:00';
INSERT INTO typed (id, label, amount, happened_at, local_at, day, flag, big, ubig, ratio, payload, doc) VALUES
  (3, '', 0, '1970-01-01 00:00:01', '1000-01-01 00:00:00', '1000-01-01', FALSE,
   9223372036854775807, 9223372036854775808, 1e300, X'5C6E', '{}'),
  (4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
-- 100 000 bytes, 85 000 characters.
INSERT INTO typed (id, label, long_text) VALUES (5, 'long', REPEAT('0123456789abcdef🚀', 5000));

-- A typed destination with the source's own column types.
CREATE TABLE dst_typed LIKE typed;
