#!/usr/bin/env bash
# Builds what the benchmarks need and runs them: bench/run.sh [--quick] [--only SUBSTRING]
# Prints Markdown tables (native and workerd side by side) on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
export WRANGLER_SEND_METRICS=false WRANGLER_SEND_ERROR_REPORTS=false CLOUDFLARE_CF_FETCH_ENABLED=false
scripts/setup.sh >&2
cargo build --quiet --profile native --bin mkfifo-sh >&2
scripts/build.sh >&2
exec node bench/run.mjs "$@"
