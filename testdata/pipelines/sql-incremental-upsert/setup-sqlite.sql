-- Items versioned by an integer; tags is JSON.
CREATE TABLE items (
  sku     TEXT PRIMARY KEY,
  price   TEXT,
  version INTEGER NOT NULL,
  tags    JSON
);
INSERT INTO items VALUES
  ('sku-α', '19.99', 1, '["red", ["nested"]]'),
  ('sku-β', '0.0000000001', 2, NULL);
