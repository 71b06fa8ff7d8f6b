-- Grace gets a credit line (written in UTC), Linus arrives (written in
-- Tokyo time, still after every earlier change).
UPDATE customers SET credit = 0.0000000001, updated_at = '2024-05-02 00:00:00+00' WHERE id = 2;
SET timezone = 'Asia/Tokyo';
INSERT INTO customers VALUES (4, 'Linus', -1, '2024-05-02 09:00:00.5');
