-- Typed Postgres destinations: for the JSON Lines rows, for the CSV rows,
-- and for the CSV file whose last row is empty cells.
CREATE TABLE dst_typed (
  id          bigint PRIMARY KEY,
  label       text,
  amount      numeric(38,10),
  happened_at timestamptz,
  day         date,
  flag        boolean,
  big         bigint,
  ubig        numeric(20,0),
  ratio       double precision,
  payload     bytea,
  doc         jsonb
);
CREATE TABLE csv_typed (LIKE dst_typed);
CREATE TABLE csv_empty (LIKE dst_typed);
