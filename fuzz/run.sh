#!/usr/bin/env bash
# Builds the libFuzzer targets into build-fuzz (clang, address + undefined sanitizers) and runs
# each for SECONDS on its corpus:
#   fuzz/run.sh SECONDS [TARGET...]   fuzz (targets: catalog_yaml skypilot_csv gpu_spec cli hf_config)
#   fuzz/run.sh --merge [TARGET...]   minimise: merge what the runs found into fuzz/corpus/TARGET
# New inputs go to build-fuzz/corpus/TARGET (not committed); crashes to build-fuzz/artifacts/.
# Exit status is non-zero when a target found a crash, a leak, a timeout or ran out of memory.
set -euo pipefail
cd "$(dirname "$0")/.."

ALL=(catalog_yaml skypilot_csv gpu_spec cli hf_config)
BUILD=${GPUADVISE_FUZZ_BUILD_DIR:-build-fuzz}
JOBS=${JOBS:-2}

max_len() {
    case $1 in
        gpu_spec) echo 256 ;;
        cli) echo 1024 ;;
        *) echo 8192 ;;
    esac
}

usage() { sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 1 ] || usage
mode=$1; shift
case $mode in
    --merge) ;;
    *[!0-9]* | "") usage ;;
esac
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${ALL[@]}")
for t in "${targets[@]}"; do
    [[ " ${ALL[*]} " == *" $t "* ]] || { echo "fuzz/run.sh: unknown target '$t' (${ALL[*]})" >&2; exit 2; }
done

command -v clang++ >/dev/null || { echo "fuzz/run.sh: needs clang++ (apt-get install clang libclang-rt-dev)" >&2; exit 1; }
if [ ! -f "$BUILD/build.ninja" ]; then
    cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
        -DGPUADVISE_FUZZ=ON -DGPUADVISE_SANITIZE=ON -DGPUADVISE_TESTS=OFF >&2
fi
ninja -C "$BUILD" -j "$JOBS" $(printf 'fuzz_%s ' "${targets[@]}") >&2

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
for t in "${targets[@]}"; do
    seeds=fuzz/corpus/$t
    found=$BUILD/corpus/$t
    mkdir -p "$seeds" "$found" "$BUILD/artifacts"
    dict=()
    [ -f "fuzz/dict/$t.dict" ] && dict=(-dict="fuzz/dict/$t.dict")
    if [ "$mode" = --merge ]; then
        echo "==> merging $found into $seeds" >&2
        tmp=$(mktemp -d)
        # 1 KB inputs keep the committed corpus small (~500 KB in all) at almost no loss of coverage.
        "$BUILD/fuzz/fuzz_$t" -merge=1 -max_len=1024 "$tmp" "$seeds" "$found" 2>"$BUILD/merge-$t.log" || status=1
        rm -f "$seeds"/*
        cp "$tmp"/* "$seeds"/ 2>/dev/null || true
        rm -rf "$tmp"
        echo "    $(ls "$seeds" | wc -l) files, $(du -sh "$seeds" | cut -f1)" >&2
        continue
    fi
    echo "==> fuzz_$t for ${mode}s" >&2
    "$BUILD/fuzz/fuzz_$t" "${dict[@]}" -max_total_time="$mode" -max_len="$(max_len "$t")" -timeout=10 \
        -rss_limit_mb=2560 -print_final_stats=1 -artifact_prefix="$BUILD/artifacts/$t-" "$found" "$seeds" \
        2>"$BUILD/fuzz-$t.log" || { status=1; echo "    FAILED: see $BUILD/fuzz-$t.log and $BUILD/artifacts/" >&2; }
    grep -E '^#[0-9]+[[:space:]]+(DONE|INITED)' "$BUILD/fuzz-$t.log" | sed 's/^/    /' >&2 || true
done
exit $status
