#!/usr/bin/env bash
# Run as: ./with-sendbox.sh ./assert-with-curl.sh
set -euo pipefail

# Your application sends; here curl stands in for it.
curl -sf "$SENDBOX_URL/messages" \
  -H "Authorization: token $SENDBOX_TOKEN" \
  -H 'Content-Type: application/json' \
  -d '{ "template": "welcome", "from": "Acme <hello@acme.test>", "to": "Ada <ada@example.com>",
        "subject": "Welcome to Acme",
        "templateVariables": { "name": "Ada", "dashboardUrl": "https://acme.test/dashboard" } }' >/dev/null

# Waits up to 10 s for a match; curl -f fails the step on 404 wait_timeout.
message=$(curl -sf "$SENDBOX_URL/_sandbox/api/messages/wait?to=ada@example.com&template=welcome&timeout=10000")
grep -q 'Welcome, Ada!' <<<"$message"
