-- Typed MariaDB destinations, as in setup-postgres.sql.
CREATE TABLE dst_typed (
  id          BIGINT PRIMARY KEY,
  label       TEXT,
  amount      DECIMAL(38,10),
  happened_at DATETIME(6),
  day         DATE,
  flag        BOOLEAN,
  big         BIGINT,
  ubig        BIGINT UNSIGNED,
  ratio       DOUBLE,
  payload     BLOB,
  doc         JSON
);
CREATE TABLE csv_typed LIKE dst_typed;
CREATE TABLE csv_empty LIKE dst_typed;
