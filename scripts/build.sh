#!/usr/bin/env bash
# Builds the Worker: the Rust crate for wasm32, then wasm-bindgen's JS glue into build/.
# wrangler runs this before `wrangler dev` and `wrangler deploy` ([build] in wrangler.toml).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
# The test harness builds once, then starts wrangler many times.
if [ "${MKFIFO_SKIP_BUILD:-}" = 1 ] && [ -f build/index.js ]; then exit 0; fi
cargo build --target wasm32-unknown-unknown --release --lib
wasm-bindgen target/wasm32-unknown-unknown/release/mkfifo.wasm --out-dir build --out-name index \
    --target module --no-typescript --experimental-reset-state-function --force-enable-abort-handler
# The plain import of a .wasm module is the form every wrangler version bundles.
sed -i 's/^import source wasmModule from/import wasmModule from/' build/index.js
