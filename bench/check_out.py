"""Output checks for bench/run.sh that ../shared/bench/check_jsonl.py does not cover.

    python3 check_out.py transforms OUT.jsonl IN.csv
        faucet-csv-jsonl-3t: every line a JSON object with exactly the keys
        id, given_name, country, amount, created_at, active (in that order),
        id an int, amount a float, the rest strings, all equal to the input row
        of the same position (so also: no row lost, duplicated or reordered).

    python3 check_out.py csv OUT.csv IN.csv
        faucet-jsonl-csv: OUT parses as CSV with the same header and records as
        IN (the generator's CSV); run.sh calls it only when the bytes differ.

Prints one short verdict ("ok, ...", or "BAD ...") and exits 0 either way;
the verdict goes into the table's output-check column.
"""
import csv
import json
import sys

TKEYS = ["id", "given_name", "country", "amount", "created_at", "active"]


def check_transforms(out: str, src: str) -> str:
    with open(out, "rb") as fo, open(src, newline="") as fi:
        rd = csv.reader(fi)
        hdr = next(rd)
        ix = {k: i for i, k in enumerate(hdr)}
        n = 0
        for n, line in enumerate(fo, 1):
            row = next(rd, None)
            if row is None:
                return "BAD: more lines than input rows (line %d)" % n
            try:
                o = json.loads(line)
            except ValueError as e:
                return "BAD line %d: %s" % (n, e)
            if not isinstance(o, dict) or list(o) != TKEYS:
                return "BAD line %d: keys %s" % (n, list(o) if isinstance(o, dict) else type(o).__name__)
            if type(o["id"]) is not int or o["id"] != int(row[ix["id"]]):
                return "BAD line %d: id %r (input %s)" % (n, o["id"], row[ix["id"]])
            if type(o["amount"]) is not float or o["amount"] != float(row[ix["amount"]]):
                return "BAD line %d: amount %r (input %s)" % (n, o["amount"], row[ix["amount"]])
            for k, src_k in (("given_name", "first_name"), ("country", "country"),
                             ("created_at", "created_at"), ("active", "active")):
                if o[k] != row[ix[src_k]]:
                    return "BAD line %d: %s %r (input %r)" % (n, k, o[k], row[ix[src_k]])
        if next(rd, None) is not None:
            return "BAD: %d lines, input has more rows" % n
    return "ok: 6 keys, id int, amount float, = input, ordered"


def check_csv(out: str, src: str) -> str:
    with open(out, newline="") as fo, open(src, newline="") as fi:
        ro, ri = csv.reader(fo), csv.reader(fi)
        n = 0
        for n, a in enumerate(ri):
            b = next(ro, None)
            if b is None:
                return "BAD: output ends at record %d" % n
            if a != b:
                return "BAD record %d: %r != input %r" % (n, b[:3], a[:3])
        if next(ro, None) is not None:
            return "BAD: output has more records than input"
    return "ok: same records as input (bytes differ)"


def main() -> None:
    mode, out, src = sys.argv[1:4]
    print({"transforms": check_transforms, "csv": check_csv}[mode](out, src))


if __name__ == "__main__":
    main()
