#!/usr/bin/env bash
# bench/connectors/run.sh: build faucet, the DuckDB peer and the bench
# program, make the 1M-row data set if missing, and measure the connector
# cases of issue 7 (see README.md). Arguments go to the bench program:
#   bash bench/connectors/run.sh                      # every case, 5 runs
#   bash bench/connectors/run.sh -runs 3 -cases faucet-csv-parquet,duckdb-csv-parquet
# Prints the markdown table; keeps it with the log in bench/results/connectors/.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH=$PATH:/usr/local/go/bin
B=bench/connectors/bin
R=bench/results/connectors
mkdir -p "$B" "$R" bench/data
[[ -x /usr/bin/time ]] || { echo "needs GNU time: apt-get install -y time" >&2; exit 1; }
echo "building faucet, the bench program and (first time ~30 s) the DuckDB peer" >&2
# Static, as shipped (SPEC: a single static binary), and installed by a
# copy: a binary straight out of the linker sits in the page cache in the
# folios the linker's writes made, and its start-up maps more of them
# (`faucet version` peaks 29.7 MiB fresh from the linker, 25.3 after a
# copy; 43.6 when the page cache was filled by reading the file through,
# e.g. sha256sum of an evicted binary; see bench/connectors/README.md).
CGO_ENABLED=0 go build -o "$B/faucet.linked" ./cmd/faucet
cp "$B/faucet.linked" "$B/faucet" && rm "$B/faucet.linked"
go build -o "$B/bench" ./bench/connectors
if [[ ${REBUILD:-0} == 1 || ! -x $B/duckdb-convert ]]; then
	(cd bench/connectors/duckdb && CGO_ENABLED=1 go build -o ../bin/duckdb-convert .)
fi
for f in csv jsonl; do
	if [[ ! -s bench/data/bench_1m.$f ]]; then
		echo "generating bench/data/bench_1m.$f" >&2
		go run ./bench/gen --rows 1000000 --format $f --out bench/data/bench_1m.$f.tmp
		mv bench/data/bench_1m.$f.tmp bench/data/bench_1m.$f
	fi
done
cat bench/data/bench_1m.csv bench/data/bench_1m.jsonl >/dev/null # page cache
{
	echo "$(date -u +%FT%TZ), $(nproc) cores, faucet $(git describe --always --dirty 2>/dev/null || echo '?') (binary sha256 $(sha256sum "$B/faucet" | cut -c1-12)…), duckdb-go $(grep -m1 'duckdb/duckdb-go/v2 ' bench/connectors/duckdb/go.mod | awk '{print $NF}')"
	echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$R/meta.txt"
"$B/bench" "$@" 2> >(tee "$R/log.txt" >&2) | tee "$R/table.md"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$R/meta.txt"
