#!/usr/bin/env bash
# Installs what is missing, builds, and starts mkfifo locally in workerd (wrangler dev) on
# http://127.0.0.1:8787 with an example FIFO and a local operator token for the JSON API.
# State persists in .wrangler/state between runs. Stop with Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
export WRANGLER_SEND_METRICS=false WRANGLER_SEND_ERROR_REPORTS=false CLOUDFLARE_CF_FETCH_ENABLED=false
port=${PORT:-8787}
base="http://127.0.0.1:$port"

scripts/setup.sh
if [ ! -f .dev.vars ]; then
    # A local operator token; wrangler dev reads secrets from .dev.vars.
    echo "MKFIFO_ADMIN_TOKEN=local-$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')" > .dev.vars
fi
token=$(sed -n 's/^MKFIFO_ADMIN_TOKEN=//p' .dev.vars)

npx wrangler dev --ip 127.0.0.1 --port "$port" --show-interactive-dev-session=false "$@" &
wrangler_pid=$!
trap 'kill $wrangler_pid 2>/dev/null' EXIT INT TERM

for _ in $(seq 600); do
    curl -fsS -o /dev/null "$base/robots.txt" 2>/dev/null && break
    kill -0 $wrangler_pid 2>/dev/null || exit 1
    sleep 0.5
done
# The default setup: a `hello` FIFO whose empty envelope answers every body back.
curl -fsS -o /dev/null -X PUT -H "Authorization: Bearer $token" --data-binary "" "$base/_/api/fifos/hello"

cat <<MSG

  mkfifo is running at $base/
  operator token (JSON API): $token

  try:  curl -d hello $base/hello/
        curl '$base/bin/sh?echo%20hello%20%7C%20tr%20a-z%20A-Z'
        curl -X PUT -H 'Authorization: Bearer $token' --data-binary @envelope.txt $base/_/api/fifos/my-fifo
        curl -H 'Authorization: Bearer $token' $base/_/api/fifos/hello/log

MSG
wait $wrangler_pid
