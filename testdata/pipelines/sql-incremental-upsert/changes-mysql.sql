-- acc-1's balance changes (one above the bookmark), acc-3 opens.
INSERT INTO ledger VALUES
  (9007199254740996, 'acc-1', 99.9999999999),
  (9007199254740997, 'acc-3', 12345678901234567890.5);
