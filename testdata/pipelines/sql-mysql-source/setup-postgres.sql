-- A typed Postgres destination. BIGINT UNSIGNED needs numeric(20,0).
CREATE TABLE dst_typed (
  id          bigint PRIMARY KEY,
  label       text,
  amount      numeric(38,10),
  happened_at timestamptz,
  local_at    timestamp,
  day         date,
  flag        boolean,
  big         bigint,
  ubig        numeric(20,0),
  ratio       double precision,
  payload     bytea,
  doc         jsonb,
  long_text   text
);
