#!/bin/sh
set -eu
TMP_DIR="$(mktemp -d)"
trap 'rm -rf "$TMP_DIR"' EXIT
cp -r src "$TMP_DIR/"
