-- Typed destinations: qty only takes integers.
CREATE TABLE orders (id bigint PRIMARY KEY, qty integer NOT NULL);
CREATE TABLE orders_propagate (LIKE orders);
CREATE TABLE orders_budget (LIKE orders);
