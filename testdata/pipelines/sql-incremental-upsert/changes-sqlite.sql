-- sku-α is repriced (a higher version), sku-γ is new.
UPDATE items SET price = '17.5', version = 3, tags = '[]' WHERE sku = 'sku-α';
INSERT INTO items VALUES ('sku-γ', '1e-10', 4, '{"k": [1, 2]}');
