#!/usr/bin/env bash
# SQL connector benchmark: faucet against the database's own tools, on the local
# Postgres and MariaDB services, in the same run (see bench/sql/README.md).
#
#   bash bench/sql/run.sh                      # every group, 1M rows, 5 runs each (~10 min idle)
#   bash bench/sql/run.sh pg                   # the Postgres groups only (pg-jsonl pg-pg csv-pg)
#   bash bench/sql/run.sh mysql                # the MySQL groups only (my-jsonl my-my csv-my)
#   bash bench/sql/run.sh pg-pg csv-pg         # some groups; the others keep their last result
#   bash bench/sql/run.sh --runs 3             # runs per case (default 5; the table shows the median)
#   bash bench/sql/run.sh --data 100k          # 100k | 1m (default) | 10m, or --rows N
#   bash bench/sql/run.sh --profile ...        # + one untimed faucet run per case with --cpuprofile
#                                              #   (results: <case>.pprof and its top 30 in <case>.pprof.txt)
#   bash bench/sql/run.sh --table              # reprint the last table
#   bash bench/sql/run.sh --tag base ...       # keep the results apart (results/sql-<data>-base/), e.g. for
#                                              #   FAUCET=/path/to/an/older/faucet
#   bash bench/sql/run.sh --record-expected    # store the output fingerprints of this binary as the
#                                              #   reference later runs compare with (expected/<data>.txt)
#   FAUCET=/path/to/faucet bash bench/sql/run.sh   # measure that binary (default: go build -o /tmp/faucet-bench)
#   REGEN=1 bash bench/sql/run.sh              # regenerate the CSV and reload the source tables
#   IDLE_WAIT=120 IDLE_BUSY=20 bash ...        # wait up to 120 s for < 20 % machine load before each round
#
# Groups (peer first; the bar is faucet's rows/s over the peer's, same run):
#   pg-jsonl  pg-rowjson   psql \copy (select row_to_json(b) from bench b) to FILE  | faucet postgres -> jsonl   bar 0.9
#   pg-pg     pg-copy-pipe COPY bench TO STDOUT | COPY bench_dest FROM STDIN          | faucet postgres -> postgres bar 0.8
#   csv-pg    pg-load      psql \copy bench_dest from CSV                             | faucet csv -> postgres      bar 0.8
#   my-jsonl  my-json      mysql --quick -e "select json_object(...) from bench" > FILE | faucet mysql -> jsonl     (no bar)
#   my-my     my-dump-pipe mysqldump bench | mysql (other database)                   | faucet mysql -> mysql       bar 0.8
#   csv-my    my-load      LOAD DATA LOCAL INFILE                                     | faucet csv -> mysql         (no bar)
# and peak RSS <= 32 MiB for the faucet cases with a bar.
#
# Services (SPEC §4), override with the environment: PGHOST=127.0.0.1 PGPORT=5432 PGUSER=postgres,
# MYHOST=127.0.0.1 MYPORT=3306 MYUSER=root. Databases of its own: PG_DB=faucet_bench (tables bench,
# bench_dest), MY_DB=faucet_bench (bench) and MY_DEST_DB=faucet_bench_dest (bench); created if missing.
# Files: bench/data/bench_<data>.csv (shared with bench/run.sh), bench/sql/bin/gen,
# bench/out/sql-<data>/, bench/results/sql-<data>/ (one .runs/.tsv per case, table.md); all gitignored.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
export PATH=/usr/local/go/bin:$PATH

DATA=1m
ROWS=
RUNS=${RUNS:-5}
PROFILE=0
TABLE_ONLY=0
RECORD=0
TAG=
GROUPS_ARG=()
while (($#)); do
	case $1 in
	--data) DATA=$2; shift 2 ;;
	--rows) ROWS=$2; shift 2 ;;
	--runs) RUNS=$2; shift 2 ;;
	--profile) PROFILE=1; shift ;;
	--table) TABLE_ONLY=1; shift ;;
	--record-expected) RECORD=1; shift ;;
	--tag) TAG=-$2; shift 2 ;;
	-h | --help) sed -n '2,36p' "$0"; exit 0 ;;
	-*) echo "unknown flag $1 (see --help)" >&2; exit 2 ;;
	*) GROUPS_ARG+=("$1"); shift ;;
	esac
done
if [[ -n $ROWS ]]; then
	DATA=$ROWS N=$ROWS
else
	case $DATA in
	100k) N=100000 ;;
	1m) N=1000000 ;;
	10m) N=10000000 ;;
	*) echo "unknown --data $DATA (100k, 1m, 10m, or --rows N)" >&2; exit 2 ;;
	esac
fi

ALL_GROUPS=(pg-jsonl pg-pg csv-pg my-jsonl my-my csv-my)
RESULTS=$ROOT/bench/results/sql-$DATA$TAG
OUTD=$ROOT/bench/out/sql-$DATA$TAG
EXPECTED=$HERE/expected/$DATA.txt
mkdir -p "$RESULTS" "$OUTD" "$HERE/bin" "$ROOT/bench/data"

# --- the table -----------------------------------------------------------------------
# One .tsv per case: name desc median min max cpu dbcpu rss_mib rows rows_s busy check run_id
declare -A PEER_OF=([faucet-pg-jsonl]=pg-rowjson [faucet-pg-pg]=pg-copy-pipe [faucet-csv-pg]=pg-load
	[faucet-csv-pg-parsed]=pg-load [faucet-my-jsonl]=my-json [faucet-my-my]=my-dump-pipe [faucet-csv-my]=my-load)
# the bars of issue 5; my-jsonl and csv-my are measured for information (no bar)
declare -A BAR_OF=([faucet-pg-jsonl]=0.9 [faucet-pg-pg]=0.8 [faucet-csv-pg]=0.8 [faucet-my-my]=0.8)
ORDER=(pg-rowjson faucet-pg-jsonl pg-copy-pipe faucet-pg-pg pg-load faucet-csv-pg faucet-csv-pg-parsed
	my-json faucet-my-jsonl my-dump-pipe faucet-my-my my-load faucet-csv-my)

field() { cut -f"$2" "$RESULTS/$1.tsv" 2>/dev/null || true; }

print_table() {
	echo "data: $N rows ($(cat "$RESULTS/meta" 2>/dev/null || echo '?'))"
	echo
	echo "| case | what | median s | min-max s | client CPU s | DB server CPU s | peak RSS MiB (above faucet --help) | rows/s | × peer | bar | machine busy | output check |"
	echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---|"
	local c p ratio bar verdict help
	help=$(cat "$RESULTS/help_rss" 2>/dev/null || echo 0)
	for c in "${ORDER[@]}"; do
		[[ -f $RESULTS/$c.tsv ]] || continue
		ratio=
		bar=
		p=${PEER_OF[$c]:-}
		if [[ -n $p && -f $RESULTS/$p.tsv ]]; then
			ratio=$(awk -v a="$(field "$c" 10)" -v b="$(field "$p" 10)" 'BEGIN { if (b > 0) printf "%.2f", a / b }')
			if [[ -n ${BAR_OF[$c]:-} && -n $ratio ]]; then
				verdict=$(awk -v r="$ratio" -v w="${BAR_OF[$c]}" -v m="$(field "$c" 8)" 'BEGIN {
					printf "%s ≥%s×, %s ≤32 MiB", (r >= w ? "PASS" : "FAIL"), w, (m <= 32 ? "PASS" : "FAIL") }')
				bar=$verdict
			fi
		fi
		awk -F'\t' -v ratio="$ratio" -v bar="$bar" -v help="$help" '{
			for (i = 1; i <= NF; i++) gsub(/\|/, "\\|", $i)
			rss = sprintf("%.1f", $8)
			if ($1 ~ /^faucet/ && help > 0) rss = rss sprintf(" (+%.1f)", $8 - help)
			printf "| %s | %s | %.3f | %.3f-%.3f | %.2f | %.2f | %s | %d | %s | %s | %s%% | %s |\n",
				$1, $2, $3, $4, $5, $6, $7, rss, $10, ratio, bar, $11, $12 }' "$RESULTS/$c.tsv"
	done
	echo
	echo "median of $(cat "$RESULTS/runs" 2>/dev/null || echo "$RUNS") runs per case, peer and faucet runs interleaved;"
	echo "rows/s = $N / median; × peer = faucet rows/s ÷ the peer's; client CPU = user+sys of the measured"
	echo "command (median); DB server CPU = CPU the database server spent meanwhile (median; includes any other"
	echo "client's queries); machine busy = all cores' busy share during the runs (mean), 2 cores here."
}

if ((TABLE_ONLY)); then
	print_table
	exit 0
fi

# --- tools and services ---------------------------------------------------------------
for t in psql mysql mysqldump python3; do
	command -v $t >/dev/null || { echo "missing $t" >&2; exit 1; }
done
[[ -x /usr/bin/time ]] || { echo "missing GNU time: apt-get install -y time" >&2; exit 1; }
export PGHOST=${PGHOST:-127.0.0.1} PGPORT=${PGPORT:-5432} PGUSER=${PGUSER:-postgres}
MYHOST=${MYHOST:-127.0.0.1} MYPORT=${MYPORT:-3306} MYUSER=${MYUSER:-root}
PG_DB=${PG_DB:-faucet_bench}
MY_DB=${MY_DB:-faucet_bench}
MY_DEST_DB=${MY_DEST_DB:-faucet_bench_dest}
export PGDATABASE=$PG_DB
PG_URL=postgres://$PGUSER@$PGHOST:$PGPORT/$PG_DB
MY_URL=mysql://$MYUSER@$MYHOST:$MYPORT/$MY_DB
MY_DEST_URL=mysql://$MYUSER@$MYHOST:$MYPORT/$MY_DEST_DB
MYSQL=(mysql -h "$MYHOST" -P "$MYPORT" -u "$MYUSER")
pg() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }
my() { "${MYSQL[@]}" "$@"; }

# groups to run
SEL=()
for g in "${GROUPS_ARG[@]}"; do
	case $g in
	pg) SEL+=(pg-jsonl pg-pg csv-pg) ;;
	mysql) SEL+=(my-jsonl my-my csv-my) ;;
	pg-jsonl | pg-pg | csv-pg | my-jsonl | my-my | csv-my) SEL+=("$g") ;;
	*) echo "unknown group $g (pg, mysql, ${ALL_GROUPS[*]})" >&2; exit 2 ;;
	esac
done
((${#SEL[@]})) || SEL=("${ALL_GROUPS[@]}")
want_pg=0 want_my=0
for g in "${SEL[@]}"; do [[ $g == my-* || $g == csv-my ]] && want_my=1 || want_pg=1; done

# --- builds and data -----------------------------------------------------------------------
(cd "$ROOT" && go build -o "$HERE/bin/gen" ./bench/gen)
if [[ -n ${FAUCET:-} ]]; then
	FB=$(realpath "$FAUCET")
	echo "using FAUCET=$FB (not rebuilt)" >&2
else
	FB=/tmp/faucet-bench
	echo "building $FB" >&2
	# Installed by a copy, not measured straight out of the linker's page
	# cache folios (bench/connectors/run.sh says why).
	(cd "$ROOT" && CGO_ENABLED=0 go build -o "$FB.linked" ./cmd/faucet && cp "$FB.linked" "$FB" && rm "$FB.linked")
fi
IN=$ROOT/bench/data/bench_$DATA.csv
if [[ ${REGEN:-0} == 1 || ! -s $IN ]]; then
	echo "generating $IN" >&2
	"$HERE/bin/gen" --rows "$N" --out "$IN.tmp" && mv "$IN.tmp" "$IN"
fi
SHA=$(sha256sum "$IN" | cut -c1-64)
case $DATA in # sha256 of ../shared/bench/gen's output (its README)
1m) [[ $SHA == 831dada80ee657109a6cc52f9cf78bf50d0eebd875af513ede128f077924fa5c ]] || echo "WARNING: $IN differs from the shared data set" >&2 ;;
100k) [[ $SHA == 0e655a984233fa37b7a5a59182006efb6a65d14848d476228289bd5cde9f3db3 ]] || echo "WARNING: $IN differs from the shared data set" >&2 ;;
esac

# fingerprints: order-independent, outside the timing
pg_fp() { # TABLE -> "count hash"
	psql -X -Atc "select count(*) || ' ' || coalesce(sum(hashtext(t::text)::bigint), 0) from $1 t"
}
MY_COLS="id, first_name, country, amount, created_at, active, attributes"
my_fp() { # DB.TABLE -> "count hash"
	my -N -e "select concat(count(*), ' ', coalesce(sum(crc32(concat_ws('|', $MY_COLS, isnull(amount), isnull(attributes)))), 0)) from $1"
}
jsonl_fp() { # FILE -> "lines sha256-of-sorted-lines"
	echo "$(wc -l <"$1") $(LC_ALL=C sort -S 256M "$1" | sha256sum | cut -c1-16)"
}

if ((want_pg)); then
	pg -d postgres -tc "select 1 from pg_database where datname = '$PG_DB'" | grep -q 1 || pg -d postgres -c "create database $PG_DB"
	pg <<-'EOF'
		set client_min_messages = warning;
		create table if not exists bench(id bigint, first_name text, country text, amount numeric,
		  created_at timestamptz, active bool, attributes jsonb);
		create table if not exists bench_dest (like bench);
	EOF
	if [[ ${REGEN:-0} == 1 || $(psql -X -Atc "select count(*) from bench") != "$N" ]]; then
		echo "loading $PG_DB.bench" >&2
		pg -c "truncate bench" -c "\\copy bench from '$IN' with (format csv, header true)" -c "vacuum analyze bench"
	fi
	PG_SRC_FP=$(pg_fp bench)
fi
if ((want_my)); then
	my -e "create database if not exists $MY_DB; create database if not exists $MY_DEST_DB;
		create table if not exists $MY_DB.bench(id bigint, first_name text, country text, amount decimal(12,2),
		  created_at datetime, active boolean, attributes json);
		create table if not exists $MY_DEST_DB.bench like $MY_DB.bench"
	if [[ ${REGEN:-0} == 1 || $(my -N -e "select count(*) from $MY_DB.bench") != "$N" ]]; then
		echo "loading $MY_DB.bench" >&2
		my --local-infile=1 "$MY_DB" -e "truncate table bench; load data local infile '$IN' into table bench
			fields terminated by ',' optionally enclosed by '\"' lines terminated by '\n' ignore 1 lines
			(id, first_name, country, amount, @c, @a, attributes)
			set created_at = str_to_date(@c, '%Y-%m-%dT%H:%i:%sZ'), active = (@a = 'true')"
	fi
	MY_SRC_FP=$(my_fp "$MY_DB.bench")
fi

RUN_ID=$(date -u +%Y-%m-%dT%H:%M:%SZ)
{
	printf '%s cores, %s, %s' "$(nproc)" "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')" "$RUN_ID"
	printf ', faucet %s (binary sha256 %s…, %s MB' "$(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo '?')" "$(sha256sum "$FB" | cut -c1-12)" \
		"$(($(stat -c %s "$FB") / 1000000))"
	# the binary's own share of every faucet RSS below: its pages touched by starting up
	/usr/bin/time -f %M "$FB" --help 2>&1 >/dev/null | tail -1 | awk '{ printf "%.1f\n", $1 / 1024 }' >"$RESULTS/help_rss"
	printf '; faucet --help peak RSS %s MiB)' "$(cat "$RESULTS/help_rss")"
	((want_pg)) && printf ', %s' "$(psql -X -Atc 'show server_version' | cut -d' ' -f1 | sed 's/^/Postgres /')"
	((want_my)) && printf ', MariaDB %s' "$(my -N -e 'select version()' | cut -d- -f1)"
} >"$RESULTS/meta"
echo "$RUNS" >"$RESULTS/runs"

# --- measuring ------------------------------------------------------------------------------
CLK=$(getconf CLK_TCK)
NCPU=$(nproc)
busy_jiffies() { local s; read -ra s </proc/stat; echo $((s[1] + s[2] + s[3] + s[6] + s[7] + s[8])); }
proc_cpu() { # PID... -> utime+stime (+ reaped children) in jiffies
	local p sum=0 f
	for p in "$@"; do
		[[ -r /proc/$p/stat ]] || continue
		f=$(sed 's/.*) //' "/proc/$p/stat") || continue
		read -ra f <<<"$f"
		sum=$((sum + f[11] + f[12] + f[13] + f[14]))
	done
	echo $sum
}
PG_PM=
if ((want_pg)); then
	PG_PM=$(head -1 "$(psql -X -Atc 'show data_directory')/postmaster.pid" 2>/dev/null || true)
fi
MY_PID=$(pgrep -o -x mariadbd || pgrep -o -x mysqld || true)
db_cpu() { # pg|my -> server CPU jiffies so far (postmaster + children, reaped backends included)
	case $1 in
	pg) [[ -n $PG_PM ]] && proc_cpu "$PG_PM" $(ps --ppid "$PG_PM" -o pid= 2>/dev/null) || echo 0 ;;
	my) [[ -n $MY_PID ]] && proc_cpu "$MY_PID" || echo 0 ;;
	esac
}
# wait_idle: the machine is shared; wait (up to IDLE_WAIT s, default 60) until all cores are
# less than IDLE_BUSY % (default 30) busy over 1 s before a round starts.
wait_idle() {
	local end=$((SECONDS + ${IDLE_WAIT:-60})) a b tot i busy
	while :; do
		read -ra a </proc/stat
		sleep 1
		read -ra b </proc/stat
		tot=0
		for i in 1 2 3 4 5 6 7 8; do tot=$((tot + b[i] - a[i])); done
		busy=$(((tot - (b[4] - a[4]) - (b[5] - a[5])) * 100 / (tot > 0 ? tot : 1)))
		((busy < ${IDLE_BUSY:-30} || SECONDS >= end)) && break
		echo "   machine ${busy}% busy, waiting" >&2
	done
}

# once NAME DB PREPARE CMD: one timed run; appends "wall cpu dbcpu rss_kb busy%" to NAME.runs
once() {
	local name=$1 db=$2 prep=$3 cmd=$4 t=$RESULTS/$1.time a b d0 d1 t0 t1 rc=0
	bash -c "$prep" >/dev/null
	d0=$(db_cpu "$db")
	a=$(busy_jiffies)
	t0=$EPOCHREALTIME
	/usr/bin/time -f '%U %S %M' -o "$t" bash -c "$cmd" >"$RESULTS/$name.log" 2>&1 || rc=$?
	t1=$EPOCHREALTIME
	b=$(busy_jiffies)
	d1=$(db_cpu "$db")
	if ((rc != 0)); then
		echo "   $name FAILED (exit $rc): $(grep -v '^Command exited' "$RESULTS/$name.log" | tail -3 | tr '\n' ' ')" >&2
		echo "FAILED" >>"$RESULTS/$name.runs"
		return 0
	fi
	read -r u s m < <(tail -1 "$t")
	awk -v t0="$t0" -v t1="$t1" -v u="$u" -v s="$s" -v m="$m" -v a="$a" -v b="$b" -v d0="$d0" -v d1="$d1" \
		-v clk="$CLK" -v n="$NCPU" 'BEGIN {
		w = t1 - t0; printf "%.3f %.2f %.2f %d %.0f\n", w, u + s, (d1 - d0) / clk, m, (b - a) / clk / (w * n) * 100 }' \
		>>"$RESULTS/$name.runs"
	tail -1 "$RESULTS/$name.runs" | awk -v n="$name" '{ printf "   %-22s %6.3f s  cpu %5.2f  db %5.2f  rss %5.1f MiB  busy %s%%\n", n, $1, $2, $3, $4 / 1024, $5 }' >&2
}

# summarize NAME DESC CHECK: the .runs file -> NAME.tsv (medians; max RSS)
summarize() {
	local name=$1 desc=$2 check=$3
	if grep -q FAILED "$RESULTS/$name.runs"; then
		check="FAILED: $(grep -v '^Command exited' "$RESULTS/$name.log" | tail -2 | tr '\n\t' '  ' | cut -c1-160)"
	fi
	# strings through the environment: awk -v would expand the backslash in \copy
	grep -v FAILED "$RESULTS/$name.runs" | sort -n | S_NAME=$name S_DESC=$desc S_CHECK=$check awk -v rows="$N" -v run="$RUN_ID" '
		function med(a, k,   s) { return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
		{ w[NR] = $1; c[NR] = $2; d[NR] = $3; if ($4 > rss) rss = $4; busy += $5 }
		END {
			name = ENVIRON["S_NAME"]; desc = ENVIRON["S_DESC"]; check = ENVIRON["S_CHECK"]
			if (NR == 0) { printf "%s\t%s\t0\t0\t0\t0\t0\t0\t%d\t0\t0\t%s\t%s\n", name, desc, rows, check, run; exit }
			n = asort(c); n = asort(d)
			printf "%s\t%s\t%.3f\t%.3f\t%.3f\t%.2f\t%.2f\t%.1f\t%d\t%.0f\t%.0f\t%s\t%s\n",
				name, desc, med(w, NR), w[1], w[NR], med(c, NR), med(d, NR), rss / 1024, rows, rows / med(w, NR), busy / NR, check, run
		}' >"$RESULTS/$name.tsv"
}

# expect NAME FINGERPRINT: compare with the recorded reference (or record it)
expect() {
	local name=$1 fp=$2 want
	if ((RECORD)); then
		mkdir -p "$(dirname "$EXPECTED")"
		{ grep -v "^$name " "$EXPECTED" 2>/dev/null || true; echo "$name $fp"; } | sort >"$EXPECTED.tmp" && mv "$EXPECTED.tmp" "$EXPECTED"
		echo "recorded"
		return
	fi
	want=$(awk -v n="$name" '$1 == n { $1 = ""; sub(/^ /, ""); print }' "$EXPECTED" 2>/dev/null)
	if [[ -z $want ]]; then echo "no reference"
	elif [[ $want == "$fp" ]]; then echo "= reference"
	else echo "DIFFERS from reference ($fp vs $want)"; fi
}

# same FP SOURCE_FP: ", = source" when a destination table equals the source table
same() { [[ $1 == "$2" ]] && echo ", = source" || echo ", differs from source"; }

# profile NAME DB PREPARE ENV...: one more untimed faucet run with --cpuprofile
profile() {
	((PROFILE)) || return 0
	local name=$1 db=$2 prep=$3 cfg=$4
	shift 4
	bash -c "$prep" >/dev/null
	if env "$@" "$FB" --cpuprofile "$RESULTS/$name.pprof" run "$cfg" --quiet >/dev/null 2>&1; then
		go tool pprof -top -nodecount=30 "$FB" "$RESULTS/$name.pprof" >"$RESULTS/$name.pprof.txt" 2>/dev/null || true
		echo "   profile: $RESULTS/$name.pprof.txt" >&2
	fi
}

# group runs: RUNS rounds, each runs every member once (peer first), after wait_idle
declare -a MEMBERS
round_robin() {
	local r m
	for m in "${MEMBERS[@]}"; do : >"$RESULTS/${m%%|*}.runs"; done
	for ((r = 1; r <= RUNS; r++)); do
		wait_idle
		echo "  round $r/$RUNS" >&2
		for m in "${MEMBERS[@]}"; do
			IFS='|' read -r name db prep cmd <<<"$m"
			once "$name" "$db" "$prep" "$cmd"
		done
	done
}

PGT="psql -X -q -c 'truncate bench_dest' -c checkpoint"
MYT="${MYSQL[*]} -e 'truncate table $MY_DEST_DB.bench'"
FENV="PG_URL=$PG_URL MY_URL=$MY_URL MY_DEST_URL=$MY_DEST_URL TABLE=bench IN=$IN"
P=$HERE/pipelines
cat "$IN" >/dev/null # page cache

for g in "${SEL[@]}"; do
	echo "== $g" >&2
	case $g in
	pg-jsonl)
		o=$OUTD/pg-rowjson.jsonl fo=$OUTD/faucet-pg-jsonl.jsonl
		MEMBERS=("pg-rowjson|pg|rm -f $o|psql -X -q -c \"\\copy (select row_to_json(b) from bench b) to '$o'\""
			"faucet-pg-jsonl|pg|rm -f $fo|env $FENV OUT=$fo $FB run $P/pg_jsonl.yaml --quiet")
		round_robin
		summarize pg-rowjson "psql \\copy (select row_to_json(b) from bench b) to FILE" "$(wc -l <"$o") lines"
		profile faucet-pg-jsonl pg "rm -f $fo" "$P/pg_jsonl.yaml" PG_URL="$PG_URL" TABLE=bench OUT="$fo"
		fp=$(jsonl_fp "$fo")
		summarize faucet-pg-jsonl "faucet: postgres table -> jsonl" "$fp $(expect faucet-pg-jsonl "$fp")"
		;;
	pg-pg)
		peer="psql -X -q -c 'copy bench to stdout' | psql -X -q -c 'copy bench_dest from stdin'"
		MEMBERS=("pg-copy-pipe|pg|$PGT|$peer"
			"faucet-pg-pg|pg|$PGT|env $FENV DEST=bench_dest $FB run $P/pg_pg.yaml --quiet")
		round_robin
		fp=$(pg_fp bench_dest) # faucet ran last
		summarize faucet-pg-pg "faucet: postgres table -> postgres table (COPY)" "$fp$(same "$fp" "$PG_SRC_FP") $(expect faucet-pg-pg "$fp")"
		profile faucet-pg-pg pg "$PGT" "$P/pg_pg.yaml" PG_URL="$PG_URL" TABLE=bench DEST=bench_dest
		bash -c "$PGT; $peer" >/dev/null
		fp=$(pg_fp bench_dest)
		summarize pg-copy-pipe "psql COPY bench TO STDOUT | psql COPY bench_dest FROM STDIN (text)" "$fp$(same "$fp" "$PG_SRC_FP")"
		;;
	csv-pg)
		peer="psql -X -q -c \"\\copy bench_dest from '$IN' with (format csv, header true)\""
		MEMBERS=("pg-load|pg|$PGT|$peer"
			"faucet-csv-pg|pg|$PGT|env $FENV DEST=bench_dest $FB run $P/csv_pg.yaml --quiet"
			"faucet-csv-pg-parsed|pg|$PGT|env $FENV DEST=bench_dest $FB run $P/csv_pg_parsed.yaml --quiet")
		round_robin
		fp=$(pg_fp bench_dest) # the last member ran last
		summarize faucet-csv-pg-parsed "faucet: csv -> json_parse(attributes) -> postgres (COPY)" "$fp$(same "$fp" "$PG_SRC_FP") $(expect faucet-csv-pg-parsed "$fp")"
		bash -c "$PGT" >/dev/null
		env $FENV DEST=bench_dest "$FB" run "$P/csv_pg.yaml" --quiet >/dev/null 2>&1 || true
		fp=$(pg_fp bench_dest)
		summarize faucet-csv-pg "faucet: csv -> postgres (COPY)" "$fp$(same "$fp" "$PG_SRC_FP") $(expect faucet-csv-pg "$fp")"
		profile faucet-csv-pg pg "$PGT" "$P/csv_pg.yaml" PG_URL="$PG_URL" IN="$IN" DEST=bench_dest
		bash -c "$PGT; $peer" >/dev/null
		fp=$(pg_fp bench_dest)
		summarize pg-load "psql \\copy bench_dest FROM csv" "$fp$(same "$fp" "$PG_SRC_FP")"
		;;
	my-jsonl)
		o=$OUTD/my-json.jsonl fo=$OUTD/faucet-my-jsonl.jsonl
		q="select json_object('id',id,'first_name',first_name,'country',country,'amount',amount,'created_at',created_at,'active',active,'attributes',json_query(attributes,'\$')) from bench"
		MEMBERS=("my-json|my|rm -f $o|${MYSQL[*]} --quick -N -r -B $MY_DB -e \"$q\" > $o"
			"faucet-my-jsonl|my|rm -f $fo|env $FENV OUT=$fo $FB run $P/my_jsonl.yaml --quiet")
		round_robin
		summarize my-json "mysql --quick -N -r -e 'select json_object(...) from bench' > FILE" "$(wc -l <"$o") lines"
		profile faucet-my-jsonl my "rm -f $fo" "$P/my_jsonl.yaml" MY_URL="$MY_URL" TABLE=bench OUT="$fo"
		fp=$(jsonl_fp "$fo")
		summarize faucet-my-jsonl "faucet: mysql table -> jsonl" "$fp $(expect faucet-my-jsonl "$fp")"
		;;
	my-my)
		dump="mysqldump -h $MYHOST -P $MYPORT -u $MYUSER --no-create-info --skip-comments $MY_DB bench | ${MYSQL[*]} $MY_DEST_DB"
		MEMBERS=("my-dump-pipe|my|$MYT|$dump"
			"faucet-my-my|my|$MYT|env $FENV DEST=bench $FB run $P/my_my.yaml --quiet")
		round_robin
		fp=$(my_fp "$MY_DEST_DB.bench")
		profile faucet-my-my my "$MYT" "$P/my_my.yaml" MY_URL="$MY_URL" MY_DEST_URL="$MY_DEST_URL" TABLE=bench DEST=bench
		summarize faucet-my-my "faucet: mysql table -> mysql table (other database)" "$fp$(same "$fp" "$MY_SRC_FP") $(expect faucet-my-my "$fp")"
		bash -c "$MYT; $dump" >/dev/null
		fp=$(my_fp "$MY_DEST_DB.bench")
		summarize my-dump-pipe "mysqldump bench | mysql (other database)" "$fp$(same "$fp" "$MY_SRC_FP")"
		;;
	csv-my)
		load="${MYSQL[*]} --local-infile=1 $MY_DEST_DB -e \"load data local infile '$IN' into table bench fields terminated by ',' optionally enclosed by '\\\"' lines terminated by '\\n' ignore 1 lines (id, first_name, country, amount, @c, @a, attributes) set created_at = str_to_date(@c, '%Y-%m-%dT%H:%i:%sZ'), active = (@a = 'true')\""
		MEMBERS=("my-load|my|$MYT|$load"
			"faucet-csv-my|my|$MYT|env $FENV DEST=bench $FB run $P/csv_my.yaml --quiet")
		round_robin
		fp=$(my_fp "$MY_DEST_DB.bench")
		profile faucet-csv-my my "$MYT" "$P/csv_my.yaml" IN="$IN" MY_DEST_URL="$MY_DEST_URL" DEST=bench
		summarize faucet-csv-my "faucet: csv -> cast(active bool), json_parse(attributes) -> mysql" "$fp $(expect faucet-csv-my "$fp")"
		bash -c "$MYT; $load" >/dev/null
		fp=$(my_fp "$MY_DEST_DB.bench")
		summarize my-load "mysql LOAD DATA LOCAL INFILE (csv)" "$fp$(same "$fp" "$MY_SRC_FP")"
		;;
	esac
done

print_table | tee "$RESULTS/table.md"
