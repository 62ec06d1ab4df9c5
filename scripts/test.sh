#!/usr/bin/env bash
# The whole test suite, from a fresh clone: installs what is missing, builds, and runs
#   1. the native Rust tests (cargo test: unit tests and tests/*.rs),
#   2. the differential suites (tests/diff: mkfifo-sh against GNU tools, jq 1.7.1, OpenSSL, rclone),
#   3. the Worker's integration tests in local workerd (tests/worker/*.test.mjs, real HTTP),
#   4. the external shell corpus (busybox's and Oils' suites), when ../shared has it,
#   5. the short stress run: random bodies, bad input, a kill mid-delivery (tests/stress).
# Usage: scripts/test.sh [unit|diff|worker|external|stress]...   (default: all five)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
export WRANGLER_SEND_METRICS=false WRANGLER_SEND_ERROR_REPORTS=false CLOUDFLARE_CF_FETCH_ENABLED=false
export MKFIFO_REF_PATH="$PWD/.ref/jq/bin:$PWD/.ref/py/bin"
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(unit diff worker external stress)
step() { printf '\n== %s (%s)\n' "$*" "$(date -u +%H:%M:%S)" >&2; }

step "setup"
scripts/setup.sh --test

for part in "${parts[@]}"; do
    case "$part" in
    unit)
        step "native tests (cargo test)"
        cargo test --quiet
        ;;
    diff)
        step "differential suites (tests/diff)"
        cargo build --quiet --profile native --bin mkfifo-sh
        python3 tests/diff/run.py --report target/diff/report.md
        ;;
    worker)
        step "Worker build (wasm32) and integration tests in local workerd"
        scripts/build.sh
        timeout 1200 node --test --test-concurrency=1 --test-reporter=spec tests/worker/*.test.mjs
        ;;
    stress)
        step "short stress run in local workerd (tests/stress)"
        scripts/build.sh
        timeout 300 node --test --test-concurrency=1 --test-reporter=spec tests/stress/*.test.mjs
        ;;
    external)
        corpus=../shared/corpora/sh-external/run.py
        if [ ! -f "$corpus" ]; then
            step "external shell corpus: not here ($corpus), skipped"
            continue
        fi
        step "external shell corpus (pass rate per source file)"
        # The differential suites' build: a second, fat-LTO native build would only add minutes.
        cargo build --quiet --profile native --bin mkfifo-sh
        target=${CARGO_TARGET_DIR:-target}
        result=$(python3 "$corpus" --failures "$target/external-failures.txt" "$target/native/mkfifo-sh" || true)
        printf '%s\n' "$result"
        passed=$(printf '%s\n' "$result" | tail -n1 | awk '{print $1}')
        floor=$(grep -v '^#' tests/diff/external_floor.txt)
        if [ "${passed:-0}" -lt "$floor" ]; then
            echo "external corpus: $passed passed, below the floor of $floor (tests/diff/external_floor.txt)" >&2
            exit 1
        fi
        ;;
    *) echo "unknown part: $part" >&2; exit 2 ;;
    esac
done
step "all passed"
