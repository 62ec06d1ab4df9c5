#!/usr/bin/env bash
# Builds what the benchmarks need and runs them:
#   bench/run.sh [--quick] [--only SUBSTRING] [--cases] [--against REVISION]
# Prints Markdown tables (native and workerd side by side) on stdout. --against builds an
# older revision (a git commit) beside this one, its native mkfifo-sh and its Worker, and
# the first table times both in the same run (bench/run.mjs).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
export WRANGLER_SEND_METRICS=false WRANGLER_SEND_ERROR_REPORTS=false CLOUDFLARE_CF_FETCH_ENABLED=false
scripts/setup.sh >&2
cargo build --quiet --profile native --bin mkfifo-sh >&2
scripts/build.sh >&2
args=()
while [ $# -gt 0 ]; do
    if [ "$1" = --against ]; then
        rev=$(git rev-parse --verify "$2^{commit}")
        # The older source in a worktree of its own, built with its own target directory
        # (kept, so that a second run builds nothing).
        src=target/against/src-$rev
        [ -d "$src" ] || git worktree add --detach "$src" "$rev" >&2
        CARGO_TARGET_DIR="$PWD/target/against/target" cargo build --quiet --profile native \
            --bin mkfifo-sh --manifest-path "$src/Cargo.toml" >&2
        cp target/against/target/native/mkfifo-sh "target/against/mkfifo-sh-$rev"
        args+=(--against "target/against/mkfifo-sh-$rev")
        # Its Worker, built by its own build script with this checkout's npm packages.
        [ -e "$src/node_modules" ] || ln -s "$PWD/node_modules" "$src/node_modules"
        "$src/scripts/build.sh" >&2
        # A name of its own: two local Workers of one name share their Durable Objects
        # through wrangler's registry of dev sessions.
        sed 's/^name = "mkfifo"$/name = "mkfifo-older"/' "$src/wrangler.toml" >"$src/wrangler.older.toml"
        args+=(--against-worker "$src/wrangler.older.toml")
        shift 2
    else
        args+=("$1")
        shift
    fi
done
exec node bench/run.mjs "${args[@]}"
