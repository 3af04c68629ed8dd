#!/usr/bin/env bash
# Usage: ./with-sendbox.sh npm test
# Starts sendbox in the background, waits for it, runs the command with SENDBOX_URL and
# SENDBOX_TOKEN set, then stops sendbox. Exits with the command's status.
set -euo pipefail

log=$(mktemp)
# Job control gives sendbox (npx and the node process under it) its own process group,
# so that the whole group can be stopped at the end.
set -m
npx sendbox --no-open --port 0 --memory >"$log" 2>&1 &
sendbox_pid=$!
set +m
trap 'kill -TERM -- "-$sendbox_pid" 2>/dev/null || true; wait "$sendbox_pid" 2>/dev/null || true; rm -f "$log"' EXIT

# sendbox prints "sendbox ready <url>" once it accepts requests.
SENDBOX_URL=""
for _ in $(seq 1 150); do
  SENDBOX_URL=$(sed -n 's/^sendbox ready //p' "$log")
  [ -n "$SENDBOX_URL" ] && break
  if ! kill -0 "$sendbox_pid" 2>/dev/null; then cat "$log" >&2; exit 1; fi
  sleep 0.2
done
if [ -z "$SENDBOX_URL" ]; then echo "sendbox did not start in 30 s" >&2; cat "$log" >&2; exit 1; fi

export SENDBOX_URL
export SENDBOX_TOKEN=sandbox_ci
"$@"
