#!/bin/bash
: "${SLACK_WEBHOOK_URL:?set SLACK_WEBHOOK_URL}"
status="$1"
curl -s -X POST -H 'Content-type: application/json' --data "{\"text\":\"Build ${status}\"}" "$SLACK_WEBHOOK_URL"
