-- The source table: every type that tends to break a tool, with the
-- timestamptz values written from three time zones.
SET timezone = 'America/Los_Angeles';
CREATE TABLE typed (
  id          bigint PRIMARY KEY,
  label       text,
  amount      numeric(38,10),
  happened_at timestamptz,
  day         date,
  flag        boolean,
  big         bigint,
  ratio       double precision,
  payload     bytea,
  doc         jsonb,
  long_text   text
);
INSERT INTO typed (id, label, amount, happened_at, day, flag, big, ratio, payload, doc) VALUES
  (1, 'plain', 9999999999999999999999999999.9999999999, '2024-03-10 01:30:00', '2024-02-29', true,
   9007199254740993, 0.1, '\x00ff0a0d09', '{"a": [1, [2, 3], {"b": []}], "s": "ü", "n": null}'),
  (2, E'Zürich — 東京 🚀 👩‍👩‍👧 "quoted", comma, tab\there', -0.0000000001, '2024-06-30 23:59:59.999999+05:30', '1999-12-31', false,
   -9223372036854775808, -1.5e-7, '\x', '[[], [[1]], {"k": [true, false, null]}]'),
  (3, '', 0, '1970-01-01 00:00:00+00', '0001-01-01', false,
   9223372036854775807, 1e300, '\x5c6e', '{}'),
  (4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
-- 100 000 bytes, 85 000 characters.
INSERT INTO typed (id, label, long_text) VALUES (5, 'long', repeat('0123456789abcdef🚀', 5000));

-- A typed destination with the source's own column types.
CREATE TABLE dst_typed (LIKE typed);
