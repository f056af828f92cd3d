#!/usr/bin/env bash
# Benchmark: startup on the built-in catalog (gpus, offers, recommend, compare), then `offers`
# (filter + sort), catalog loading, `recommend` and `compare` over generated 10k / 100k / 1M-offer
# SkyPilot tables, with hyperfine and peak memory from /usr/bin/time -v, plus the same queries in
# plain Python as the baseline. Writes bench/out/results.md (copy the tables into docs/performance.md).
# Generated tables are cached in bench/out/ (git-ignored): the 1M one (212 MB) is written once.
#   bench/run.sh BINARY [SIZES...]     e.g. bench/run.sh build/gpuadvise 10000 100000
set -euo pipefail
BIN=$(realpath "${1:?usage: bench/run.sh BINARY [SIZES...]}")
cd "$(dirname "$0")"
shift
SIZES=("$@")
[ ${#SIZES[@]} -eq 0 ] && SIZES=(10000 100000 1000000)
RUNS=${BENCH_RUNS:-10}

need=()
command -v hyperfine >/dev/null || need+=(hyperfine)
[ -x /usr/bin/time ] || need+=(time)
if [ ${#need[@]} -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "bench: missing ${need[*]}; install with: sudo apt-get install -y ${need[*]}" >&2
        exit 1
    fi
    apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >&2
fi

mkdir -p out
label() { case $1 in 1000000) echo 1M ;; *000) echo "$(($1 / 1000))k" ;; *) echo "$1" ;; esac; }
peak_mb() {  # peak resident set of a command, MB
    /usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2 / 1024}'
}
median_ms() {  # median of a hyperfine JSON export, ms
    python3 -c 'import json,sys; print("%.1f" % (json.load(open(sys.argv[1]))["results"][0]["median"] * 1000))' "$1"
}

RESULTS=out/results.md
REC=(recommend --model bert --runs-per-week 4 -q)
CMP=(compare A100 V100 T4 -q)
{
    echo "Built-in catalog (start to exit):"
    echo
    echo "| command | median ms | peak MB |"
    echo "|---|---:|---:|"
} >"$RESULTS"
# No `catalog update` cache and no ~/.sky/catalogs of this machine, unless the cache rows below set one.
export GPUADVISE_CACHE_DIR="$PWD/out/no-cache" GPUADVISE_SKY_DIR=""
for cmd in "gpus -q" "offers --gpu A100 -q" "${REC[*]}" "${CMP[*]}"; do
    read -r -a args <<<"$cmd"
    echo "==> built-in: $cmd" >&2
    hyperfine -N --warmup 3 --runs $((RUNS * 2)) --export-json out/default.json "$BIN $cmd" >&2
    echo "| \`gpuadvise $cmd\` | $(median_ms out/default.json) | $(peak_mb "$BIN" "${args[@]}") |" >>"$RESULTS"
done
# The same recommend with a `catalog update` cache holding every cloud's table (issue 14: within 2x the
# built-in-only time): read from the compact stores (vms.store, written by the warm-up runs, as by
# `catalog update`), and with plain folders, which are only read (every CSV parsed at start-up; issue 32).
rm -rf out/cache out/cache-csv && python3 make_cache.py ../data/skypilot out/cache >&2 &&
    python3 make_cache.py ../data/skypilot out/cache-csv --plain >&2
# The three in one interleaved run (bench/interleaved.py), each through `env` so that they start alike.
echo "==> cache of every cloud: ${REC[*]}" >&2
python3 interleaved.py out/cache.json $((RUNS * 4)) "env GPUADVISE_CACHE_DIR=$PWD/out/no-cache $BIN ${REC[*]}" \
    "env GPUADVISE_CACHE_DIR=$PWD/out/cache $BIN ${REC[*]}" "env GPUADVISE_CACHE_DIR=$PWD/out/cache-csv $BIN ${REC[*]}"
for c in cache cache-csv; do
    i=1
    [ "$c" = cache ] || i=2
    read -r ms ratio < <(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; i=int(sys.argv[2]); print("%.1f %.2f" % (r[i]["median_ms"], r[i]["median_ms"] / r[0]["median_ms"]))' out/cache.json $i)
    what="the cache of every cloud (read from its stores)"
    [ "$c" = cache ] || what="the cache of every cloud in plain folders (CSV parsed)"
    echo "| \`gpuadvise ${REC[*]}\` over $what | $ms (${ratio}x built-in) | $(GPUADVISE_CACHE_DIR=$PWD/out/$c peak_mb "$BIN" "${REC[@]}") |" >>"$RESULTS"
done
# Issue 32: a 1,000-point --what-if within 3x the plain recommend, the HTML report within 2x the table; the
# three in one interleaved run (bench/interleaved.py: A B C A B C ...), ratios of the medians.
echo "==> built-in: what-if and HTML against the plain recommend" >&2
python3 interleaved.py out/what-if.json $((RUNS * 4)) "$BIN ${REC[*]}" \
    "$BIN ${REC[*]} --what-if runs-per-week=0.1:100:0.1" "$BIN ${REC[*]} --format html"
python3 - out/what-if.json "${REC[*]}" "$(peak_mb "$BIN" "${REC[@]}" --what-if runs-per-week=0.1:100:0.1)" \
    "$(peak_mb "$BIN" "${REC[@]}" --format html)" >>"$RESULTS" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
(plain, what_if, html), cpu = ([r["median_ms"] for r in results], [r["cpu_ms"] for r in results])
rec = sys.argv[2]
# The wall ratio is the target; the CPU ratio (user + system, medians) is steadier on a loaded machine.
print(f"| `gpuadvise {rec} --what-if runs-per-week=0.1:100:0.1` (1,000 points) | {what_if:.1f} ({what_if / plain:.2f}x the plain recommend, at most 3x; CPU {cpu[1] / cpu[0]:.2f}x) | {sys.argv[3]} |")
print(f"| `gpuadvise {rec} --format html` | {html:.1f} ({html / plain:.2f}x the table, at most 2x; CPU {cpu[2] / cpu[0]:.2f}x) | {sys.argv[4]} |")
PY
# Issue 32: the common question against `gpuadvise --version` (the process start and the command line set
# up) in one interleaved run (--version, the question, --version, ...), at most 2x in wall time; and its
# instructions (callgrind, where valgrind is installed), at most 20 M.
echo "==> built-in: ${REC[*]} against --version" >&2
python3 interleaved.py out/version.json $((RUNS * 20)) "$BIN --version" "$BIN ${REC[*]}"
python3 - out/version.json "${REC[*]}" >>"$RESULTS" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
version, rec = (r["median_ms"] for r in results)
rounds = results[0]["rounds"]
print(f"| `gpuadvise {sys.argv[2]}` against `gpuadvise --version` ({version:.1f}; {rounds} interleaved pairs) | {rec:.1f} ({rec / version:.2f}x, at most 2x) | |")
PY
if command -v valgrind >/dev/null; then
    instructions() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null | awk '/Collected/ {print $4}'; }
    echo "| instructions (callgrind): \`gpuadvise ${REC[*]}\` $(instructions "$BIN" "${REC[@]}") (at most 20 M), \`--version\` $(instructions "$BIN" --version) | | |" >>"$RESULTS"
fi
{
    echo
    echo "| offers | CSV MB | gpuadvise offers median ms | peak MB | catalog load (catalog info) median ms | peak MB | Python baseline median ms | peak MB |"
    echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
} >>"$RESULTS"
SECOND=out/results-recommend.md
{
    echo
    echo "| offers | gpuadvise recommend median ms | peak MB | gpuadvise compare median ms | peak MB | Python recommend baseline median ms | peak MB |"
    echo "|---:|---:|---:|---:|---:|---:|---:|"
} >"$SECOND"

for n in "${SIZES[@]}"; do
    name=$(label "$n")
    csv=out/offers-$name.csv
    [ -f "$csv" ] || python3 gen_catalog.py "$n" "$csv"
    mb=$(python3 -c "import os,sys; print('%.1f' % (os.path.getsize(sys.argv[1]) / 1e6))" "$csv")
    # --provider-name keeps the id fixed whatever the file is called; no built-in offers, built-in GPUs.
    query=("$BIN" --catalog "$csv" --provider-name bench offers --gpu A100 --plan on-demand --sort price-per-gpu --limit 10 -q)
    load=("$BIN" --catalog "$csv" --provider-name bench catalog info -q)
    py=(python3 baseline.py "$csv")
    runs=$RUNS
    [ "$n" -ge 1000000 ] && runs=3
    echo "==> $name offers ($mb MB)" >&2
    hyperfine -N --warmup 1 --runs "$runs" --export-json "out/offers-$name.json" "${query[*]}" >&2
    hyperfine -N --warmup 1 --runs "$runs" --export-json "out/load-$name.json" "${load[*]}" >&2
    hyperfine -N --warmup 1 --runs "$runs" --export-json "out/python-$name.json" "${py[*]}" >&2
    echo "| $name | $mb | $(median_ms "out/offers-$name.json") | $(peak_mb "${query[@]}") | $(median_ms "out/load-$name.json") | $(peak_mb "${load[@]}") | $(median_ms "out/python-$name.json") | $(peak_mb "${py[@]}") |" >>"$RESULTS"

    rec=("$BIN" --catalog "$csv" --provider-name bench "${REC[@]}")
    cmp=("$BIN" --catalog "$csv" --provider-name bench "${CMP[@]}")
    pyrec=(python3 baseline_recommend.py "$csv")
    echo "==> $name recommend / compare" >&2
    hyperfine -N --warmup 1 --runs "$runs" --export-json "out/recommend-$name.json" "${rec[*]}" >&2
    hyperfine -N --warmup 1 --runs "$runs" --export-json "out/compare-$name.json" "${cmp[*]}" >&2
    hyperfine -N --warmup 1 --runs "$runs" --export-json "out/python-recommend-$name.json" "${pyrec[*]}" >&2
    echo "| $name | $(median_ms "out/recommend-$name.json") | $(peak_mb "${rec[@]}") | $(median_ms "out/compare-$name.json") | $(peak_mb "${cmp[@]}") | $(median_ms "out/python-recommend-$name.json") | $(peak_mb "${pyrec[@]}") |" >>"$SECOND"
done
cat "$SECOND" >>"$RESULTS"

# Issue 32: every match listed (no --limit): the A100 quarter of each table as a table, JSON and CSV,
# written as they are made (io::JsonItems), to /dev/null.
{
    echo
    echo "Listing every match: \`offers --gpu A100 --format F\` (no --limit), to /dev/null:"
    echo
    echo "| offers | table ms | table MB | JSON ms | JSON MB | CSV ms | CSV MB |"
    echo "|---:|---:|---:|---:|---:|---:|---:|"
} >>"$RESULTS"
for n in "${SIZES[@]}"; do
    name=$(label "$n")
    row="| $name"
    for fmt in table json csv; do
        list=("$BIN" --catalog "out/offers-$name.csv" --provider-name bench offers --gpu A100 --format "$fmt" -q)
        echo "==> $name listing ($fmt)" >&2
        hyperfine -N --warmup 1 --runs 3 --output=null --export-json "out/list-$name.json" "${list[*]}" >&2
        row+=" | $(median_ms "out/list-$name.json") | $(peak_mb "${list[@]}")"
    done
    echo "$row |" >>"$RESULTS"
done

# Issue 32: the same `offers` question against DuckDB and Python, interleaved (bench/vs_duckdb.sh).
./vs_duckdb.sh "$BIN" "$RESULTS" "${SIZES[@]}"
echo "==> work at the input bounds (bench/bounds.py)" >&2
python3 bounds.py "$BIN" "$RESULTS" >&2
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end, $(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo), $(date -u +%Y-%m-%d)" >>"$RESULTS"
cat "$RESULTS"
