#!/usr/bin/env bash
# The whole test suite, from a fresh clone: installs what is missing, builds, and runs
#   1. the native Rust tests (cargo test: unit tests and tests/*.rs),
#   2. the differential suites (tests/diff: mkfifo-sh against GNU tools, jq 1.7.1, OpenSSL, rclone),
#   3. the Worker's integration tests in local workerd (tests/worker/*.test.mjs, real HTTP),
#   4. the short stress run: random bodies, bad input, a kill mid-delivery (tests/stress).
# Usage: scripts/test.sh [unit|diff|worker|stress]...   (default: all four)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
export WRANGLER_SEND_METRICS=false WRANGLER_SEND_ERROR_REPORTS=false CLOUDFLARE_CF_FETCH_ENABLED=false
export MKFIFO_REF_PATH="$PWD/.ref/jq/bin:$PWD/.ref/py/bin"
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(unit diff worker stress)
step() { printf '\n== %s\n' "$*" >&2; }

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
    *) echo "unknown part: $part" >&2; exit 2 ;;
    esac
done
step "all passed"
