#!/usr/bin/env bash
# Measure faucet against the peers of ../shared/bench in one run and print a
# markdown table (see bench/README.md).
#
#   bash bench/run.sh                     # 1M rows: faucet cases + peers, ~4 min idle (2 cores), ~10 min busy
#   bash bench/run.sh --big               # also faucet and the go-csvjson floor on 10M rows (RSS check), +~3 min
#   bash bench/run.sh --data 100k         # data set 100k | 1m | 10m   (or --rows N)
#   bash bench/run.sh --runs 3            # hyperfine runs per case (default 5; the median is reported)
#   bash bench/run.sh --no-peers          # faucet cases only (the ratio column needs go-csvjson: keep it)
#   bash bench/run.sh go-csvjson faucet-csv-jsonl   # only these cases (others keep their last result)
#   bash bench/run.sh --table             # reprint the table from the last results
#   bash bench/run.sh --profile ...       # after timing, one extra run per faucet case with --cpuprofile:
#                                         #   results/<data>/<case>.cpu.pprof and its top 30 in <case>.pprof.txt
#   REBUILD=1 bash bench/run.sh           # rebuild the peer binaries too (faucet and gen are always rebuilt)
#   REGEN=1 bash bench/run.sh             # regenerate the data files
#   FAUCET=/path/to/faucet bash bench/run.sh   # measure that binary instead of building ./cmd/faucet
#
# Needs: Go at /usr/local/go, hyperfine, miller, GNU time, python3 (output checks), gcc (DuckDB peer).
# Run as root it installs the missing tools with apt-get (hyperfine miller time).
# Files: bench/bin/ (faucet, gen), bench/data/, bench/out/<data>/, bench/results/<data>/ (one .tsv/.csv/.json/
# .log/.rss per case, table.md), bench/.peers/ (writable copy of ../shared/bench and its binaries).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
SHARED=${SHARED_BENCH:-$ROOT/../shared/bench}
PEERS=${BENCH_WORK:-$HERE/.peers}
export PATH=/usr/local/go/bin:$PATH
[[ -n ${FAUCET:-} ]] && FAUCET=$(realpath -m "$FAUCET")

DATA=1m
ROWS=
RUNS=${RUNS:-5}
BIG=0
TABLE_ONLY=0
NO_PEERS=0
PROFILE=0
CASES=()
while (($#)); do
	case $1 in
	--data) DATA=$2; shift 2 ;;
	--rows) ROWS=$2; shift 2 ;;
	--runs) RUNS=$2; shift 2 ;;
	--big) BIG=1; shift ;;
	--no-peers) NO_PEERS=1; shift ;;
	--profile) PROFILE=1; shift ;;
	--table) TABLE_ONLY=1; shift ;;
	-h | --help) sed -n '2,22p' "$0"; exit 0 ;;
	-*) echo "unknown flag $1 (see --help)" >&2; exit 2 ;;
	*) CASES+=("$1"); shift ;;
	esac
done

rows_of() { # data-set name -> row count
	case $1 in
	100k) echo 100000 ;;
	1m) echo 1000000 ;;
	10m) echo 10000000 ;;
	*[!0-9]*) echo "unknown --data $1 (100k, 1m, 10m, or use --rows N)" >&2; exit 2 ;;
	*) echo "$1" ;;
	esac
}
name_of() { # row count -> data-set name
	case $1 in
	100000) echo 100k ;;
	1000000) echo 1m ;;
	10000000) echo 10m ;;
	*) echo "$1" ;;
	esac
}
if [[ -n $ROWS ]]; then DATA=$(name_of "$ROWS"); fi
N=$(rows_of "$DATA")

FAUCET_CASES=(faucet-csv-jsonl faucet-csv-jsonl-3t faucet-jsonl-csv)
PEER_CASES=(duckdb miller benthos-tuned miller-jsonl-csv) # go-csvjson (the floor) runs first
BIG_CASES=(go-csvjson-10m faucet-csv-jsonl-10m)
# table order
ORDER=(go-csvjson "${FAUCET_CASES[@]}" duckdb miller benthos-tuned miller-jsonl-csv "${BIG_CASES[@]}")

# --- the shared harness: a writable copy, then its functions (measure, print helpers) ---
# Copied by hand: lib.sh's own read-only check passes for root on a read-only-by-mode folder.
if [[ ! -f $SHARED/lib.sh ]]; then
	echo "no $SHARED/lib.sh (set SHARED_BENCH to the shared bench folder)" >&2
	exit 1
fi
mkdir -p "$PEERS"
for f in lib.sh check_jsonl.py gen rawgo duckdb benthos; do
	cp -r "$SHARED/$f" "$PEERS/"
done
chmod -R u+w "$PEERS"
# shellcheck source=/dev/null
source "$PEERS/lib.sh" # sets BENCH_DIR=$PEERS; RUNS kept from above
PB=$BENCH_DIR

cd "$HERE"
RESULTS=$HERE/results/$DATA
OUTD=out/$DATA # outputs of this data set (the floor's output is compared with faucet's)
mkdir -p "$RESULTS" "$OUTD" data bin

# --- table ---------------------------------------------------------------------
# tsv fields (lib.sh measure, patched by finish): 1 name 2 desc 3 median 4 stddev
# 5 min-max 6 cpu 7 rss MiB 8 rows 9 rows/s 10 input MiB/s 11 check
print_results() {
	local dir=$1
	echo "data: bench_$DATA.csv ($N rows$( [[ -f $dir/meta ]] && cat "$dir/meta"))"
	echo
	echo "| case | what it measures | median s | min-max s | CPU s | peak RSS MiB | rows/s | × go-csvjson | output check | other load |"
	echo "|---|---|---:|---:|---:|---:|---:|---:|---|---:|"
	local floor=
	[[ -f $dir/go-csvjson.tsv ]] && floor=$(cut -f9 "$dir/go-csvjson.tsv")
	local floor_big=
	[[ -f $dir/go-csvjson-10m.tsv ]] && floor_big=$(cut -f9 "$dir/go-csvjson-10m.tsv")
	local n f
	for n in "${ORDER[@]}"; do
		f=$dir/$n.tsv
		[[ -f $f ]] || continue
		local fl=$floor
		[[ $n == *-10m ]] && fl=$floor_big
		awk -F'\t' -v floor="$fl" -v run="$(cat "$dir/run_id" 2>/dev/null)" '{
			if ($13 != run) $1 = $1 " (earlier run " $13 ")"
			for (i = 1; i <= NF; i++) gsub(/\|/, "\\|", $i)
			if ($3 == "") { printf "| %s | %s | | | | | | | %s | |\n", $1, $2, $11; next }
			ratio = (floor + 0 > 0 && $9 + 0 > 0) ? sprintf("%.2f", $9 / floor) : ""
			printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $5, $6, $7, $9, ratio, $11, ($12 == "" ? "" : $12 "%")
		}' "$f"
	done
	echo
	echo "rows/s = data rows / median; × go-csvjson = rows/s ÷ the go-csvjson floor's rows/s in this run (10M rows: ÷ go-csvjson-10m);"
	echo "other load = share of all cores that other processes used during the case's timed runs (from /proc/stat minus the"
	echo "case's own CPU s; an estimate): above ~10 % the case's times are inflated by a busy machine."
	bars "$dir"
}

# bars DIR: the issue's performance bars, evaluated on the results in DIR. Throughput
# bars compare medians (the bar) and, as a second opinion on a busy machine, the
# fastest of the runs; "other load" of the two cases is repeated when above 10 %.
bars() {
	local dir=$1
	echo
	echo "Bars (issue 2; medians, then best run; from the results above):"
	# bar LABEL CASE BASE MIN_RATIO: CASE's speed / BASE's speed (same rows) >= MIN_RATIO
	bar() {
		local a=$dir/$2.tsv b=$dir/$3.tsv
		if [[ ! -f $a || ! -f $b || -z $(cut -f3 "$a") || -z $(cut -f3 "$b") ]]; then
			echo "- $1: not measured"
			return
		fi
		paste "$a" "$b" | awk -F'\t' -v label="$1" -v want="$4" '{
			# a: $1..$13, b: $14..$26
			split($5, am, "-"); split($18, bm, "-")
			r = $16 / $3; rmin = bm[1] / am[1]
			load = ($12 > 10 || $25 > 10) ? sprintf("; busy machine: other load %s%% / %s%%", $12, $25) : ""
			printf "- %s: %.2fx (best run %.2fx) %s (CPU s %.2f vs %.2f%s)\n", label, r, rmin, (r >= want ? "PASS" : "FAIL"), $6, $19, load
		}'
	}
	bar "CSV->JSONL >= 1.0x go-csvjson" faucet-csv-jsonl go-csvjson 1.0
	local rss rss10
	rss=$(cut -f7 "$dir/faucet-csv-jsonl.tsv" 2>/dev/null || true)
	rss10=$(cut -f7 "$dir/faucet-csv-jsonl-10m.tsv" 2>/dev/null || true)
	if [[ -n $rss ]]; then
		awk -v r="$rss" -v d="$DATA" 'BEGIN { printf "- peak RSS <= 16 MiB (%s rows): %.1f MiB %s\n", d, r, (r <= 16 ? "PASS" : "FAIL") }'
	else echo "- peak RSS <= 16 MiB: not measured"; fi
	if [[ -n $rss10 ]]; then
		awk -v r="$rss10" -v r1="$rss" -v d="$DATA" 'BEGIN { printf "- peak RSS on 10M rows <= 16 MiB and no higher than on %s: %.1f MiB vs %s MiB %s\n", d, r, (r1 == "" ? "?" : r1), (r <= 16 && (r1 == "" || r <= r1 + 0.5) ? "PASS" : "FAIL") }'
	else echo "- peak RSS on 10M rows: not measured (--big)"; fi
	bar "3 transforms >= 0.8x go-csvjson" faucet-csv-jsonl-3t go-csvjson 0.8
	# within 20 %: JSONL->CSV takes at most 1.2x the time of CSV->JSONL, i.e. speed ratio >= 1/1.2
	bar "JSONL->CSV within 20% of CSV->JSONL (speed ratio >= 0.83)" faucet-jsonl-csv faucet-csv-jsonl 0.8333
	return 0
}

if ((TABLE_ONLY)); then
	print_results "$RESULTS"
	exit 0
fi

# --- tools -------------------------------------------------------------------------
missing=()
command -v hyperfine >/dev/null || missing+=(hyperfine)
command -v mlr >/dev/null || missing+=(miller)
[[ -x /usr/bin/time ]] || missing+=(time)
if ((${#missing[@]})); then
	if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
		echo "installing ${missing[*]} (apt-get)" >&2
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >&2
	else
		echo "missing ${missing[*]} -- run: apt-get update && apt-get install -y ${missing[*]}" >&2
		exit 1
	fi
fi
command -v python3 >/dev/null || echo "no python3: output checks are skipped" >&2

# --- which cases --------------------------------------------------------------------
if ((${#CASES[@]} == 0)); then
	CASES=("${FAUCET_CASES[@]}")
	((NO_PEERS)) || CASES=(go-csvjson "${CASES[@]}" "${PEER_CASES[@]}")
	((BIG)) && CASES+=("${BIG_CASES[@]}")
	((BIG && NO_PEERS)) && CASES=("${CASES[@]/go-csvjson-10m/}")
fi
want() { local c; for c in "${CASES[@]}"; do [[ $c == "$1" ]] && return 0; done; return 1; }
want_any() { local c; for c in "$@"; do want "$c" && return 0; done; return 1; }

# --- builds ---------------------------------------------------------------------------
echo "building bench/bin/gen" >&2
(cd "$ROOT" && go build -o bench/bin/gen ./bench/gen)
FAUCET_OK=1
FAUCET_WHY=
FB=$(realpath -m "${FAUCET:-bin/faucet}")
if want_any "${FAUCET_CASES[@]}" faucet-csv-jsonl-10m; then
	if [[ -n ${FAUCET:-} ]]; then
		echo "using FAUCET=$FAUCET (not rebuilt)" >&2
		[[ -x $FAUCET ]] || { FAUCET_OK=0; FAUCET_WHY="NOT BUILT: FAUCET=$FAUCET is not executable"; }
	else
		echo "building bench/bin/faucet" >&2
	fi
	# Installed by a copy, not measured straight out of the linker's page
	# cache folios (bench/connectors/run.sh says why).
	if [[ -z ${FAUCET:-} ]] && ! (cd "$ROOT" && CGO_ENABLED=0 go build -o bench/bin/faucet.linked ./cmd/faucet &&
		cp bench/bin/faucet.linked bench/bin/faucet && rm bench/bin/faucet.linked) >"$RESULTS/faucet-build.log" 2>&1; then
		FAUCET_OK=0
		FAUCET_WHY="NOT BUILT: go build ./cmd/faucet failed ($(grep -m1 -v '^#' "$RESULTS/faucet-build.log" | cut -c1-80))"
		echo "$FAUCET_WHY" >&2
	fi
fi
declare -A PEER_BIN_OK=()
build_peer() { # dir binary
	if [[ ${REBUILD:-0} == 1 || ! -x $PB/bin/$2 ]]; then
		echo "building .peers/bin/$2 (first build of benthos ~1.5 min, duckdb ~30 s)" >&2
		if ! (cd "$PB/$1" && CGO_ENABLED=1 go build -o "$PB/bin/$2" .) >"$RESULTS/build-$2.log" 2>&1; then
			echo "  $2 did not build (see results/$DATA/build-$2.log)" >&2
			return 1
		fi
	fi
	PEER_BIN_OK[$2]=1
}
want_any go-csvjson go-csvjson-10m && { build_peer rawgo rawgo || true; }
want duckdb && { build_peer duckdb duckdb-copy || true; }
want benthos-tuned && { build_peer benthos benthos || true; }

# --- data --------------------------------------------------------------------------------
gen_data() { # name rows [csv]: the CSV and (unless "csv") the JSONL of a data set
	local c=data/bench_$1.csv j=data/bench_$1.jsonl
	if [[ ${REGEN:-0} == 1 || ! -s $c ]]; then
		echo "generating $c" >&2
		bin/gen --rows "$2" --out "$c.tmp" && mv "$c.tmp" "$c"
	fi
	[[ ${3:-} == csv ]] && return 0
	if [[ ${REGEN:-0} == 1 || ! -s $j ]]; then
		echo "generating $j" >&2
		bin/gen --rows "$2" --format jsonl --out "$j.tmp" && mv "$j.tmp" "$j"
	fi
}
gen_data "$DATA" "$N"
IN=$HERE/data/bench_$DATA.csv
INJ=$HERE/data/bench_$DATA.jsonl
B=$(stat -c %s "$IN")
BJ=$(stat -c %s "$INJ")
SHA=$(sha256sum "$IN" | cut -c1-64)
case $DATA in # sha256 of ../shared/bench/gen's output (its README)
1m) [[ $SHA == 831dada80ee657109a6cc52f9cf78bf50d0eebd875af513ede128f077924fa5c ]] || echo "WARNING: $IN differs from the shared data set" >&2 ;;
100k) [[ $SHA == 0e655a984233fa37b7a5a59182006efb6a65d14848d476228289bd5cde9f3db3 ]] || echo "WARNING: $IN differs from the shared data set" >&2 ;;
10m) [[ $SHA == 99508f095e7399118e1d7b587f473d6a072f3ecc0a35c442025652661a3a410b ]] || echo "WARNING: $IN differs from the shared generator's output" >&2 ;;
esac
if ((BIG)) || want_any "${BIG_CASES[@]}"; then
	[[ $DATA == 10m ]] || gen_data 10m 10000000 csv
fi
SAMPLE=$HERE/data/bench_sample.csv
SAMPLEJ=$HERE/data/bench_sample.jsonl
bin/gen --rows 1000 --out "$SAMPLE"
bin/gen --rows 1000 --format jsonl --out "$SAMPLEJ"
RUN_ID=$(date -u +%Y-%m-%dT%H:%M:%SZ)
export RUN_ID
echo "$RUN_ID" >"$RESULTS/run_id"
{
	printf ', %s cores, %s, %s' "$(nproc)" "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" "$RUN_ID"
	printf ', faucet %s' "$(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo '?')"
	# the tree moves under us: the binary's own hash tells builds apart
	if [[ -x $FB ]]; then printf ' (binary sha256 %s…)' "$(sha256sum "$FB" | cut -c1-12)"; fi
	printf ', %s runs per case (median), csv sha256 %s…' "$RUNS" "${SHA:0:12}"
} >"$RESULTS/meta"

# --- helpers -------------------------------------------------------------------------------
# finish NAME ROWS CHECK: patch lib.sh's tsv row: rows = data rows processed (not lines out),
# rows/s from it, peak RSS in MiB with one decimal, our output check.
finish() {
	local name=$1 rows=$2 check=$3 t=$RESULTS/$1.tsv
	[[ -n $(cut -f3 "$t") ]] || return 0 # FAILED row: keep
	local rssk load
	rssk=$(sort -n "$RESULTS/$name.rss" | tail -1)
	load=$(cat "$RESULTS/$name.load" 2>/dev/null || echo "0 0 0")
	# field 12: % of all cores used by other processes during the timed runs (estimate)
	M_CHECK=$check awk -F'\t' -v OFS='\t' -v rows="$rows" -v rssk="$rssk" -v ld="$load" \
		-v clk="$CLK" -v ncpu="$NCPU" -v runs="$RUNS" '{
		split(ld, l, " "); wall = l[3] - l[2]
		other = (wall > 0) ? (l[1] / clk - runs * $6) / (wall * ncpu) * 100 : 0
		if (other < 0) other = 0
		$7 = sprintf("%.1f", rssk / 1024); $8 = rows; $9 = sprintf("%.0f", rows / $3); $11 = ENVIRON["M_CHECK"]
		$12 = sprintf("%.0f", other); $13 = ENVIRON["RUN_ID"]; print
	}' "$t" >"$t.new" && mv "$t.new" "$t"
}
not_run() { # NAME DESC WHY: a table row for a case that could not run
	printf '%s\t%s\t\t\t\t\t\t\t\t\t%s\t\t%s\n' "$1" "$2" "$3" "$RUN_ID" >"$RESULTS/$1.tsv"
	rm -f "$RESULTS/$1.csv" "$RESULTS/$1.rss"
	echo "== $1: $3" >&2
}
lines() { wc -l <"$1"; }
jcheck() { # FILE -> check_jsonl.py verdict
	if command -v python3 >/dev/null; then python3 "$PB/check_jsonl.py" "$1"; else echo "unchecked (no python3)"; fi
}
# probe CONFIG IN OUT EXPECT_LINES: run faucet once on the 1000-row sample; on failure set PROBE_WHY.
probe() {
	local cfg=$1 in=$2 out=$3 expect=$4 err
	PROBE_WHY=
	rm -f "$out"
	if ! err=$(env IN="$in" OUT="$out" timeout 60 "$FB" run "$cfg" --quiet 2>&1); then
		PROBE_WHY="NOT READY: faucet run failed on a 1000-row sample: $(echo "$err" | grep -m1 . | cut -c1-100)"
	elif [[ ! -f $out ]]; then
		PROBE_WHY="NOT READY: faucet run wrote no $out"
	elif [[ $(lines "$out") != "$expect" ]]; then
		PROBE_WHY="NOT READY: sample output has $(lines "$out") lines, want $expect"
	fi
	[[ -z $PROBE_WHY ]]
}
# warm FILE...: page-cache the inputs, then wait_idle.
warm() { cat "$@" >/dev/null; wait_idle; }
# profile NAME CONFIG IN OUT: with --profile, one untimed faucet run under --cpuprofile.
profile() {
	((PROFILE)) || return 0
	local name=$1 cfg=$2 in=$3 out=$4 pp=$RESULTS/$1.cpu.pprof
	rm -f "$out" "$pp"
	if env IN="$in" OUT="$out" "$FB" --cpuprofile "$pp" run "$cfg" --quiet >/dev/null 2>&1 && [[ -s $pp ]]; then
		go tool pprof -top -nodecount=30 "$FB" "$pp" >"$RESULTS/$name.pprof.txt" 2>/dev/null || true
		echo "   profile: results/$DATA/$name.pprof.txt" >&2
	else
		echo "   profile: faucet --cpuprofile failed" >&2
	fi
}
# wait_idle: this machine is shared; wait (up to IDLE_WAIT s, default 90) until the other
# processes use < IDLE_BUSY % (default 20) of all cores over 1 s, so a case does not start
# in the middle of someone else's build. The last busy % seen is kept in $RESULTS/NAME.busy
# by measure_case and shown in the table when it was above the threshold.
BUSY=0
wait_idle() {
	local end=$((SECONDS + ${IDLE_WAIT:-90})) a b
	while :; do
		read -ra a </proc/stat
		sleep 1
		read -ra b </proc/stat
		# fields: cpu user nice system idle iowait irq softirq steal
		local tot=0 i
		for i in 1 2 3 4 5 6 7 8; do tot=$((tot + b[i] - a[i])); done
		BUSY=$(((tot - (b[4] - a[4]) - (b[5] - a[5])) * 100 / (tot > 0 ? tot : 1)))
		((BUSY < ${IDLE_BUSY:-20} || SECONDS >= end)) && break
		echo "   machine ${BUSY}% busy, waiting" >&2
	done
}
# hyperfine (as called by lib.sh's measure) is wrapped to record the whole machine's busy
# CPU time over the timed runs in $RESULTS/$CUR.load; finish subtracts the case's own CPU
# time from it to estimate how much of the machine other processes took meanwhile.
CLK=$(getconf CLK_TCK)
NCPU=$(nproc)
CUR=
busy_jiffies() { local s; read -ra s </proc/stat; echo $((s[1] + s[2] + s[3] + s[6] + s[7] + s[8])); }
hyperfine() {
	local a b t0 t1 rc=0
	a=$(busy_jiffies)
	t0=$EPOCHREALTIME
	command hyperfine "$@" || rc=$?
	t1=$EPOCHREALTIME
	b=$(busy_jiffies)
	[[ -n $CUR ]] && echo "$((b - a)) $t0 $t1" >"$RESULTS/$CUR.load"
	return $rc
}

D_FLOOR="hand-written Go encoding/csv -> JSONL, 1 goroutine, string values (../shared/bench rawgo)"
D_CJ="faucet run: csv -> jsonl, default config"
D_3T="faucet run: csv -> rename_keys, cast (id int, amount float), drop -> jsonl"
D_JC="faucet run: jsonl (all strings) -> csv, default config"
D_CJ10="faucet run: csv -> jsonl on 10M rows (RSS check)"
D_F10="go-csvjson on 10M rows"

# --- cases -------------------------------------------------------------------------------
for c in "${CASES[@]}"; do
	[[ -n $c ]] || continue
	CUR=$c
	case $c in
	go-csvjson)
		[[ -n ${PEER_BIN_OK[rawgo]:-} ]] || { not_run $c "$D_FLOOR" "NOT BUILT"; continue; }
		o=$OUTD/$c.jsonl
		warm "$IN"
		measure $c "$D_FLOOR" "$B" "$N" "$o" "rm -f $o" "$PB/bin/rawgo -mode csvjson -in $IN -out $o"
		finish $c "$N" "$(cut -f11 "$RESULTS/$c.tsv")"
		;;
	go-csvjson-10m)
		[[ -n ${PEER_BIN_OK[rawgo]:-} ]] || { not_run $c "$D_F10" "NOT BUILT"; continue; }
		o=$OUTD/$c.jsonl
		in10=$HERE/data/bench_10m.csv
		warm "$in10"
		# RESULTS stays the current data set's folder; the 10M cases are named -10m
		measure $c "$D_F10" "$(stat -c %s "$in10")" 10000000 "$o" "rm -f $o" "$PB/bin/rawgo -mode csvjson -in $in10 -out $o"
		finish $c 10000000 "$(cut -f11 "$RESULTS/$c.tsv")"
		;;
	faucet-csv-jsonl | faucet-csv-jsonl-10m)
		d=$D_CJ in=$IN n=$N
		[[ $c == *-10m ]] && d=$D_CJ10 in=$HERE/data/bench_10m.csv n=10000000
		((FAUCET_OK)) || { not_run $c "$d" "$FAUCET_WHY"; continue; }
		probe pipelines/csv_jsonl.yaml "$SAMPLE" "$HERE/$OUTD/probe.jsonl" 1000 || { not_run $c "$d" "$PROBE_WHY"; continue; }
		o=$HERE/$OUTD/$c.jsonl
		warm "$in"
		measure $c "$d" "$(stat -c %s "$in")" "$n" "$o" "rm -f $o" \
			"env IN=$in OUT=$o $FB run pipelines/csv_jsonl.yaml --quiet"
		[[ $c == *-10m ]] || profile $c pipelines/csv_jsonl.yaml "$in" "$HERE/$OUTD/profile.jsonl"
		chk=$(cut -f11 "$RESULTS/$c.tsv")
		floor_out=$OUTD/go-csvjson.jsonl
		[[ $c == *-10m ]] && floor_out=$OUTD/go-csvjson-10m.jsonl
		if [[ -f $o && -f $floor_out ]]; then
			if cmp -s "$o" "$floor_out"; then chk="$chk, = go-csvjson bytes"
			else chk="$chk, DIFFERS from go-csvjson ($(cmp "$o" "$floor_out" 2>&1 | head -1 | sed 's/.*differ: //'))"; fi
		fi
		finish $c "$n" "$chk"
		;;
	faucet-csv-jsonl-3t)
		((FAUCET_OK)) || { not_run $c "$D_3T" "$FAUCET_WHY"; continue; }
		probe pipelines/csv_jsonl_transforms.yaml "$SAMPLE" "$HERE/$OUTD/probe.ndjson" 1000 || { not_run $c "$D_3T" "$PROBE_WHY"; continue; }
		o=$HERE/$OUTD/$c.ndjson # not .jsonl: lib.sh's check wants the 7 input keys
		warm "$IN"
		measure $c "$D_3T" "$B" "$N" "$o" "rm -f $o" \
			"env IN=$IN OUT=$o $FB run pipelines/csv_jsonl_transforms.yaml --quiet"
		profile $c pipelines/csv_jsonl_transforms.yaml "$IN" "$HERE/$OUTD/profile.ndjson"
		chk=$(cut -f11 "$RESULTS/$c.tsv")
		[[ $chk == ok ]] && command -v python3 >/dev/null && chk=$(python3 check_out.py transforms "$o" "$IN")
		finish $c "$N" "$chk"
		;;
	faucet-jsonl-csv | miller-jsonl-csv)
		if [[ $c == faucet-* ]]; then
			((FAUCET_OK)) || { not_run $c "$D_JC" "$FAUCET_WHY"; continue; }
			probe pipelines/jsonl_csv.yaml "$SAMPLEJ" "$HERE/$OUTD/probe.csv" 1001 || { not_run $c "$D_JC" "$PROBE_WHY"; continue; }
			o=$HERE/$OUTD/$c.csv
			d=$D_JC
			cmd="env IN=$INJ OUT=$o $FB run pipelines/jsonl_csv.yaml --quiet"
		else
			o=$OUTD/$c.csv
			d="mlr --ijsonl --ocsv cat (JSONL -> CSV peer)"
			cmd="mlr --ijsonl --ocsv cat $INJ > $o"
		fi
		warm "$INJ"
		measure $c "$d" "$BJ" "$((N + 1))" "$o" "rm -f $o" "$cmd"
		[[ $c == faucet-* ]] && profile $c pipelines/jsonl_csv.yaml "$INJ" "$HERE/$OUTD/profile.csv"
		chk=$(cut -f11 "$RESULTS/$c.tsv")
		if [[ $chk == ok ]]; then
			if cmp -s "$o" "$IN"; then chk="ok, = input CSV bytes"
			elif command -v python3 >/dev/null; then chk=$(python3 check_out.py csv "$o" "$IN"); fi
		fi
		finish $c "$N" "$chk"
		;;
	duckdb)
		[[ -n ${PEER_BIN_OK[duckdb-copy]:-} ]] || { not_run $c "DuckDB" "NOT BUILT"; continue; }
		o=$OUTD/$c.jsonl
		warm "$IN"
		measure $c "DuckDB COPY read_csv -> FORMAT JSON (2 threads, typed)" "$B" "$N" "$o" "rm -f $o" \
			"$PB/bin/duckdb-copy -in $IN -out $o"
		finish $c "$N" "$(cut -f11 "$RESULTS/$c.tsv")"
		;;
	miller)
		o=$OUTD/$c.jsonl
		warm "$IN"
		measure $c "mlr --icsv --ojsonl cat (type-inferring)" "$B" "$N" "$o" "rm -f $o" "mlr --icsv --ojsonl cat $IN > $o"
		finish $c "$N" "$(cut -f11 "$RESULTS/$c.tsv")"
		;;
	benthos-tuned)
		[[ -n ${PEER_BIN_OK[benthos]:-} ]] || { not_run $c "Benthos" "NOT BUILT"; continue; }
		o=$OUTD/$c.jsonl
		warm "$IN"
		measure $c "Benthos v4 csv batch_count 1000 + archive lines, 1 pipeline thread" "$B" "$N" "$o" "rm -f $o" \
			"env IN=$IN OUT=$o $PB/bin/benthos -c $PB/benthos/csv_input_batched_archive.yaml"
		finish $c "$N" "$(cut -f11 "$RESULTS/$c.tsv")"
		;;
	*) echo "unknown case $c (known: ${ORDER[*]})" >&2; exit 2 ;;
	esac
done
rm -f "$OUTD"/probe.* "$OUTD"/profile.*
echo >&2

print_results "$RESULTS" | tee "$RESULTS/table.md"
