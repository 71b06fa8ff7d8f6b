-- A typed Postgres destination.
CREATE TABLE dst_typed (
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
