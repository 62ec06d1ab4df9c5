#!/usr/bin/env bash
# Installs what is missing, builds, and starts mkfifo locally in workerd (wrangler dev) on
# http://127.0.0.1:8787 with an example FIFO, a local operator token for the JSON API and a
# sign-in link for MKFIFO_DEV_EMAIL (you@example.com unless set). Every message the Worker
# sends locally is announced in the output, with its sign-in link if it has one.
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

address=${MKFIFO_DEV_EMAIL:-you@example.com}
link_file=.wrangler/dev-signin-link
mkdir -p .wrangler && rm -f "$link_file"

node_modules/.bin/wrangler dev --ip 127.0.0.1 --port "$port" --show-interactive-dev-session=false "$@" \
    > >(python3 -u scripts/mail-links.py "$link_file") 2>&1 &
wrangler_pid=$!
trap 'kill $wrangler_pid 2>/dev/null' EXIT INT TERM

for _ in $(seq 600); do
    curl -fsS -o /dev/null "$base/robots.txt" 2>/dev/null && break
    kill -0 $wrangler_pid 2>/dev/null || exit 1
    sleep 0.5
done
# The default setup: a `hello` FIFO whose empty envelope answers every body back.
curl -fsS -o /dev/null -X PUT -H "Authorization: Bearer $token" --data-binary "" "$base/_/api/fifos/hello"

# A sign-in link for the local user, read from the message the Worker sends.
signin=$(curl -sS -o /dev/null -w '%{http_code}' --data-urlencode "email=$address" "$base/_/signin" || true)
for _ in $(seq 40); do
    [ -s "$link_file" ] && break
    sleep 0.25
done
if [ -s "$link_file" ]; then
    signin_line="sign in as $address: $(cat "$link_file")"
elif [ "$signin" = 429 ]; then
    signin_line="sign-in links for $address are used up for this hour: ask at $base/ later"
else
    signin_line="no sign-in link (answer $signin): ask for one at $base/"
fi

cat <<MSG

  mkfifo is running at $base/
  operator token (JSON API): $token
  $signin_line
  (later sign-in links appear in this output as mail arrives)

  try:  curl -d hello $base/hello/
        curl '$base/bin/sh?echo%20hello%20%7C%20tr%20a-z%20A-Z'
        curl -X PUT -H 'Authorization: Bearer $token' --data-binary @envelope.txt $base/_/api/fifos/my-fifo
        curl -H 'Authorization: Bearer $token' $base/_/api/fifos/hello/log

MSG
wait $wrangler_pid
