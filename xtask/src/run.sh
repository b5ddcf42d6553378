#!/usr/bin/env bash
# Runner for a GPU bundle made by `cargo xtask gpu-bundle` (generated file).
# Needs bash, coreutils, tar with xz, grep and awk, plus the NVIDIA driver; `sanitize`
# also needs compute-sanitizer. No Rust toolchain.
#
#   ./run test [filter...]       all test binaries (libtest filters), GPU_REQUIRED=1
#   ./run sanitize [filter...]   memcheck + racecheck over tests matching `cuda`
#   ./run bench [args...]        bin/gpu-bench
#
# With OUT=<dir> set, logs (and bench results) are written there.
set -uo pipefail

# Resolve OUT before changing directory, so a relative OUT means the caller's.
if [[ -n ${OUT:-} && ${OUT} != /* ]]; then
    OUT="$PWD/$OUT"
fi
BUNDLE="$(cd "$(dirname "$0")" && pwd)"
cd "$BUNDLE" || exit 1
if [[ -d "$BUNDLE/matrices" ]]; then
    export GPU_LINALG_MATRICES="$BUNDLE/matrices"
fi
SCRATCH="$(mktemp -d)"
trap 'rm -rf "$SCRATCH"' EXIT
# The executables travel compressed (payload.tar.xz holds tests/ and bin/).
PAYLOAD="$BUNDLE"
if [[ -f "$BUNDLE/payload.tar.xz" ]]; then
    PAYLOAD="$SCRATCH/payload"
    mkdir -p "$PAYLOAD" && tar -xJf "$BUNDLE/payload.tar.xz" -C "$PAYLOAD" || {
        echo "run: error: cannot unpack payload.tar.xz" >&2
        exit 1
    }
fi
if [[ -x "$PAYLOAD/bin/gpulinalg" ]]; then
    export GPULINALG_BIN="$PAYLOAD/bin/gpulinalg"
fi

usage() {
    cat <<'EOF'
Usage: run <command> [args...]

  test [filter...]      Run every test binary in tests/ with GPU_REQUIRED=1
                        (arguments are libtest filters/flags); ends with a line
                        "N passed, M failed".
  sanitize [filter...]  Run every test binary under compute-sanitizer memcheck,
                        then racecheck, with GPU_REQUIRED=1 PROPTEST_CASES=3
                        --test-threads=1 and the filter `cuda` unless filters
                        are given.
  bench [args...]       Run bin/gpu-bench; with OUT set, also writes
                        $OUT/bench.json and $OUT/bench.md.

Environment: BINS=word,word runs only the test binaries whose names contain
one of the words (test and sanitize). OUT=<dir> keeps logs there (test-<bin>.log,
sanitize-<tool>-<bin>.log). GPU_LINALG_MATRICES is set to the bundled
matrices directory.
EOF
}

die() {
    echo "run: error: $*" >&2
    exit 1
}

# Where the log named $1 goes: $OUT when set, else a scratch directory.
log_path() {
    if [[ -n ${OUT:-} ]]; then
        mkdir -p "$OUT" || die "cannot create OUT=$OUT"
        printf '%s/%s.log' "$OUT" "$1"
    else
        printf '%s/%s.log' "$SCRATCH" "$1"
    fi
}

# The test binaries, one per line, sorted; with BINS set, only those whose name contains
# one of its comma-separated words.
test_bins() {
    local f w keep
    for f in "$PAYLOAD"/tests/*; do
        if [[ -f $f && -x $f ]]; then
            keep=1
            if [[ -n ${BINS:-} ]]; then
                keep=0
                for w in ${BINS//,/ }; do
                    [[ ${f##*/} == *"$w"* ]] && keep=1
                done
            fi
            ((keep)) && printf '%s\n' "$f"
        fi
    done
    return 0
}

# Prints "PASSED FAILED": the sums over libtest's "test result:" lines in $1.
count_results() {
    awk '{
        i = index($0, "test result: ")
        if (i == 0) next
        n = split(substr($0, i), w, /[ ;]+/)
        for (k = 2; k <= n; k++) {
            if (w[k] == "passed") p += w[k - 1]
            else if (w[k] == "failed") f += w[k - 1]
        }
    } END { printf "%d %d\n", p, f }' "$1"
}

# Prints the number of errors compute-sanitizer reported in log $1: the sum of
# its "ERROR SUMMARY: N errors" lines (memcheck), or if there are none, of the
# E in "RACECHECK SUMMARY: H hazards displayed (E errors, W warnings)".
count_sanitizer_errors() {
    awk 'match($0, /ERROR SUMMARY: [0-9]+/) { e += substr($0, RSTART + 15, RLENGTH - 15); seen = 1 }
         match($0, /RACECHECK SUMMARY: .*\([0-9]+ error/) {
             s = substr($0, RSTART, RLENGTH); sub(/.*\(/, "", s); r += s + 0
         }
         END { printf "%d\n", seen ? e : r }' "$1"
}

gpu_info() {
    if command -v nvidia-smi >/dev/null 2>&1; then
        nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null |
            sed 's/^/GPU: /'
    fi
}

cmd_test() {
    local bins=() failures=() bin name log rc p f passed=0 failed=0
    mapfile -t bins < <(test_bins)
    ((${#bins[@]} > 0)) || die "no test binaries in $PAYLOAD/tests"
    export GPU_REQUIRED=1
    gpu_info
    for bin in "${bins[@]}"; do
        name=${bin##*/}
        log=$(log_path "test-$name")
        printf '\n===== test: %s =====\n' "$name"
        "$bin" "$@" 2>&1 | tee "$log"
        rc=${PIPESTATUS[0]}
        read -r p f < <(count_results "$log")
        passed=$((passed + p))
        if ((rc != 0 && f == 0)); then
            f=1
            failures+=("FAILED: $name exited with status $rc without a failing test (crash?); counted as 1 failure")
        elif ((rc != 0 || f > 0)); then
            failures+=("FAILED: $name: $f test(s) failed (exit status $rc)")
        fi
        failed=$((failed + f))
    done
    echo
    if ((${#failures[@]} > 0)); then
        printf '%s\n' "${failures[@]}"
    fi
    echo "$passed passed, $failed failed"
    ((failed == 0))
}

# Finds compute-sanitizer on PATH or in the usual CUDA install locations.
find_sanitizer() {
    local candidate
    if candidate=$(command -v compute-sanitizer 2>/dev/null); then
        printf '%s\n' "$candidate"
        return 0
    fi
    for candidate in ${CUDA_HOME:+"$CUDA_HOME/bin/compute-sanitizer"} \
        /usr/local/cuda/bin/compute-sanitizer \
        /usr/local/cuda/compute-sanitizer/compute-sanitizer \
        /usr/local/cuda-*/bin/compute-sanitizer \
        /opt/nvidia/*/compute-sanitizer/compute-sanitizer; do
        if [[ -x $candidate ]]; then
            printf '%s\n' "$candidate"
            return 0
        fi
    done
    return 1
}

cmd_sanitize() {
    local sanitizer bins=() filters=("$@") summary=() status=0
    local tool opts bin name log rc errors runs total failed_bins
    sanitizer=$(find_sanitizer) ||
        die "compute-sanitizer not found (PATH, \$CUDA_HOME/bin, /usr/local/cuda*/bin)"
    mapfile -t bins < <(test_bins)
    ((${#bins[@]} > 0)) || die "no test binaries in $PAYLOAD/tests"
    ((${#filters[@]} > 0)) || filters=(cuda)
    # GPU_LINALG_SANITIZE: test suites shrink their size sweeps under the (slow) sanitizer.
    export GPU_REQUIRED=1 PROPTEST_CASES=3 GPU_LINALG_SANITIZE=1
    echo "compute-sanitizer: $sanitizer"
    gpu_info
    for tool in memcheck racecheck; do
        # --require-cuda-init no: a binary whose filtered tests never touch
        # the GPU is not an error.
        opts=(--tool "$tool" --error-exitcode 97 --require-cuda-init no)
        if [[ $tool == memcheck ]]; then
            opts+=(--leak-check no)
        fi
        runs=0 total=0 failed_bins=()
        for bin in "${bins[@]}"; do
            name=${bin##*/}
            log=$(log_path "sanitize-$tool-$name")
            printf '\n===== %s: %s =====\n' "$tool" "$name"
            "$sanitizer" "${opts[@]}" "$bin" "${filters[@]}" --test-threads=1 2>&1 | tee "$log"
            rc=${PIPESTATUS[0]}
            errors=$(count_sanitizer_errors "$log")
            runs=$((runs + 1))
            total=$((total + errors))
            if ((rc != 0 || errors > 0)); then
                failed_bins+=("  $name: $errors error(s), exit status $rc")
            fi
        done
        summary+=("$tool: $runs binaries run, $total errors reported, ${#failed_bins[@]} binaries failed")
        if ((${#failed_bins[@]} > 0)); then
            summary+=("${failed_bins[@]}")
            status=1
        fi
    done
    echo
    printf '%s\n' "${summary[@]}"
    return "$status"
}

cmd_bench() {
    local bench="$PAYLOAD/bin/gpu-bench" extra=()
    [[ -x $bench ]] || die "$bench is missing (bundle built without gpu-linalg-benches)"
    if [[ -n ${OUT:-} ]]; then
        mkdir -p "$OUT" || die "cannot create OUT=$OUT"
        extra=(--json "$OUT/bench.json" --markdown "$OUT/bench.md")
    fi
    gpu_info
    "$bench" "${extra[@]}" "$@"
}

command=${1:-help}
if (($# > 0)); then
    shift
fi
case $command in
test) cmd_test "$@" ;;
sanitize) cmd_sanitize "$@" ;;
bench) cmd_bench "$@" ;;
help | -h | --help) usage ;;
*)
    usage >&2
    exit 2
    ;;
esac
