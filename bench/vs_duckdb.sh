#!/usr/bin/env bash
# Issue 32: `gpuadvise offers --gpu A100 --plan on-demand --sort price-per-gpu --limit 10` (and with
# --provider bench) over the generated 100k / 1M tables, and `offers --gpu L4 ...` (A100 on one) over
# tables of the same sizes in the shapes of real ones (bench/gen_market.py) against DuckDB (bench/duckdb_query.mjs: the same
# question as SQL over the CSV, @duckdb/node-api installed with npm into bench/out, git-ignored) and the
# pandas and plain-Python baselines (bench/baseline_pandas.py, bench/baseline.py), in one interleaved run per size (A B C A B C ...), each under /usr/bin/time: median
# wall ms, median user + system s, largest peak MB, and the ratios gpuadvise / DuckDB. Appends to RESULTS.
# Called by bench/run.sh; alone: bench/vs_duckdb.sh BINARY RESULTS SIZES... (tables: bench/run.sh makes them).
# Skips DuckDB with a message when node or npm is missing. DUCKRUNS=N sets the runs (default 5).
set -euo pipefail
BIN=$(realpath "${1:?usage: bench/vs_duckdb.sh BINARY RESULTS SIZES...}")
RESULTS=$(realpath -m "${2:?usage: bench/vs_duckdb.sh BINARY RESULTS SIZES...}")
shift 2
cd "$(dirname "$0")"
mkdir -p out
label() { case $1 in 1000000) echo 1M ;; *000) echo "$(($1 / 1000))k" ;; *) echo "$1" ;; esac; }
# The DuckDB baseline (issue 32): @duckdb/node-api installed with npm into out/ (git-ignored) when node
# and npm exist; skipped with a message otherwise.
DUCKDB=""
if command -v node >/dev/null && command -v npm >/dev/null; then
    if [ ! -d out/node_modules/@duckdb/node-api ]; then
        echo "==> installing @duckdb/node-api into bench/out (npm)" >&2
        npm install --prefix out --no-audit --no-fund --silent @duckdb/node-api >&2 || true
    fi
    if [ -d out/node_modules/@duckdb/node-api ]; then
        cp duckdb_query.mjs out/duckdb_query.mjs  # an ES module finds packages from its own directory
        DUCKDB=out/duckdb_query.mjs
    fi
fi
[ -n "$DUCKDB" ] || echo "bench: node/npm or @duckdb/node-api missing: the DuckDB rows are skipped" >&2
# A python3 with pandas for bench/baseline_pandas.py (the one on PATH, else the system's), or none.
PANDAS=""
for py in python3 /usr/bin/python3; do
    if "$py" -c 'import pandas' 2>/dev/null; then
        PANDAS=$py
        break
    fi
done
[ -n "$PANDAS" ] || echo "bench: no python3 with pandas: the pandas column is skipped" >&2
# Interleaved runs (A B C A B C ...) of several commands, each under /usr/bin/time: median wall ms,
# median user+sys s and the largest peak MB per command, as "wall cpu peak" lines in order.
interleaved() {  # interleaved RUNS LABEL1 'CMD1' LABEL2 'CMD2' ...
    local runs=$1
    shift
    local tmp
    tmp=$(mktemp -d)
    for ((i = 0; i < runs; i++)); do
        local j=0
        local args=("$@")
        while [ $j -lt ${#args[@]} ]; do
            /usr/bin/time -f "%e %U %S %M" -a -o "$tmp/${args[$j]}" bash -c "${args[$((j + 1))]}" >/dev/null 2>&1 || true
            j=$((j + 2))
        done
    done
    local args=("$@")
    for ((j = 0; j < ${#args[@]}; j += 2)); do
        python3 -c '
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip() and l.split()[0][0].isdigit()]
wall = statistics.median(float(r[0]) for r in rows) * 1000
cpu = statistics.median(float(r[1]) + float(r[2]) for r in rows)
peak = max(int(r[3]) for r in rows) / 1024
print("%.1f %.2f %.1f" % (wall, cpu, peak))' "$tmp/${args[$j]}"
    done
    rm -rf "$tmp"
}

{
    echo
    echo "offers --gpu A100 --plan on-demand --sort price-per-gpu --limit 10 (and with --provider bench; then tables in real shapes, bench/gen_market.py, with the GPU named), interleaved, ${DUCKRUNS:=5} runs each: median wall ms / median user+sys s / peak MB"
    echo
    echo "| offers | query | gpuadvise | DuckDB | pandas | Python (csv) | gpuadvise / DuckDB wall | CPU | peak | gpuadvise / pandas CPU |"
    echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"
} >>"$RESULTS"
for n in "$@"; do
    [ "$n" -ge 100000 ] || continue
    name=$(label "$n")
    csv=out/offers-$name.csv
    [ -f "$csv" ] || python3 gen_catalog.py "$n" "$csv"
    for variant in "" "--provider bench"; do
        g="$BIN --catalog $csv --provider-name bench offers --gpu A100 $variant --plan on-demand --sort price-per-gpu --limit 10 -q"
        d="node $DUCKDB $csv ${variant:+bench}"
        p="python3 baseline.py $csv"
        pd="${PANDAS:-true} baseline_pandas.py $csv"
        echo "==> $name offers ${variant:-(all providers)} against DuckDB" >&2
        if [ -n "$DUCKDB" ]; then
            mapfile -t r < <(interleaved "$DUCKRUNS" g "$g" d "$d" p "$p" pd "$pd")
        else
            mapfile -t r < <(interleaved "$DUCKRUNS" g "$g" p "$p" pd "$pd")
            r=("${r[0]}" "- - -" "${r[1]}" "${r[2]}")
        fi
        [ -n "$PANDAS" ] || r[3]="- - -"
        read -r gw gc gp <<<"${r[0]}"
        read -r dw dc dp <<<"${r[1]}"
        read -r pw pc pp <<<"${r[2]}"
        read -r aw ac ap <<<"${r[3]}"
        ratio() { python3 -c 'import sys; print("%.2f" % (float(sys.argv[1]) / float(sys.argv[2])))' "$1" "$2" 2>/dev/null || echo -; }
        echo "| $name | ${variant:-all providers} | $gw ms / $gc s / $gp MB | $dw ms / $dc s / $dp MB | $aw ms / $ac s / $ap MB | $pw ms / $pc s / $pp MB | $(ratio "$gw" "$dw") | $(ratio "$gc" "$dc") | $(ratio "$gp" "$dp") | $(ratio "$gc" "$ac") |" >>"$RESULTS"
    done
    # Tables in the shapes of real ones (bench/gen_market.py): the real rows of data/skypilot copied
    # with renamed regions (a fifth GCP accelerator rows, priced with their zone's host row), GCP's
    # table alone, a table of distinct instance types without GpuInfo, and one with 8,000 GpuInfo
    # texts; each with a question as issue 32's (--gpu L4 over its market-1m.csv). The Python
    # baselines read only the generated table's shape: not run here.
    for spec in real:L4 gcp:L4 distinct:A100 distinct-gpuinfo:L4; do
        shape=${spec%%:*}
        gpu=${spec#*:}
        table=out/$shape-$name.csv
        [ -f "$table" ] || python3 gen_market.py "$n" "$table" --shape "$shape"
        g="$BIN --catalog $table --provider-name market offers --gpu $gpu --plan on-demand --sort price-per-gpu --limit 10 -q"
        echo "==> $name offers ($shape, --gpu $gpu) against DuckDB" >&2
        if [ -n "$DUCKDB" ]; then
            mapfile -t r < <(interleaved "$DUCKRUNS" g "$g" d "node $DUCKDB $table --gpu $gpu")
        else
            mapfile -t r < <(interleaved "$DUCKRUNS" g "$g")
            r+=("- - -")
        fi
        read -r gw gc gp <<<"${r[0]}"
        read -r dw dc dp <<<"${r[1]}"
        echo "| $name | $shape, --gpu $gpu | $gw ms / $gc s / $gp MB | $dw ms / $dc s / $dp MB | - | - | $(ratio "$gw" "$dw") | $(ratio "$gc" "$dc") | $(ratio "$gp" "$dp") | - |" >>"$RESULTS"
    done
done
