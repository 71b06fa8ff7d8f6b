-- A ledger of balances; seq, the replication key, is beyond 2^53, where a
-- double cannot tell neighbours apart: the bookmark 9007199254740995 would
-- round to ...996 and skip the next row.
CREATE TABLE ledger (
  seq     BIGINT PRIMARY KEY,
  account VARCHAR(32) NOT NULL,
  balance DECIMAL(38,10) NOT NULL
);
INSERT INTO ledger VALUES
  (9007199254740993, 'acc-1', 100.0000000001),
  (9007199254740995, 'acc-2', 0);
