-- Customers changed at timestamptz updated_at, written from two time zones.
SET timezone = 'Asia/Kolkata';
CREATE TABLE customers (
  id         bigint PRIMARY KEY,
  name       text NOT NULL,
  credit     numeric(38,10),
  updated_at timestamptz NOT NULL
);
INSERT INTO customers VALUES
  (1, 'Ada', 10.5, '2024-05-01 10:00:00.123456'),
  (2, 'Grace', NULL, '2024-05-01 10:00:01.999999');
SET timezone = 'America/New_York';
INSERT INTO customers VALUES (3, 'Zoë 🚀', 99999999999999999999.0000000001, '2024-04-30 23:59:59');

-- Where the SQLite items land, upserted by sku.
CREATE TABLE items (
  sku     text PRIMARY KEY,
  price   numeric(38,10),
  version bigint NOT NULL,
  tags    jsonb
);
