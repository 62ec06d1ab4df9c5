#!/usr/bin/env bash
# Builds the Worker: the Rust crate for wasm32, then wasm-bindgen's JS glue into build/;
# and the editor's page script and style (web/editor/, CodeMirror from node_modules) into
# public/assets/, which the platform serves as static files.
# wrangler runs this before `wrangler dev` and `wrangler deploy` ([build] in wrangler.toml).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
# The test harness builds once, then starts wrangler many times.
if [ "${MKFIFO_SKIP_BUILD:-}" = 1 ] && [ -f build/index.js ] && [ -f public/assets/editor.js ]; then exit 0; fi
mkdir -p public/assets
node_modules/.bin/esbuild web/editor/main.js --bundle --format=esm --minify --target=es2022 \
    --outfile=public/assets/editor.js --log-level=warning
cp web/editor/editor.css public/assets/editor.css
cargo build --target wasm32-unknown-unknown --release --lib
wasm-bindgen "${CARGO_TARGET_DIR:-target}"/wasm32-unknown-unknown/release/mkfifo.wasm --out-dir build --out-name index \
    --target module --no-typescript --experimental-reset-state-function --force-enable-abort-handler
# The plain import of a .wasm module is the form every wrangler version bundles.
sed -i 's/^import source wasmModule from/import wasmModule from/' build/index.js
