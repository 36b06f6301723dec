#!/usr/bin/env bash
# Install one Claude Code release into CACHE/VERSION (default cache: /root/.cache/cc-versions) and print
# the path to pass to run_oracle.sh / battery.py: cli.js (2.1.88 and before) or bin/claude.exe.
#   bash tests/oracle/install_release.sh 2.1.150 [CACHE]
# Install scripts are not run (--ignore-scripts); what the package's postinstall does for the native
# binary (link the platform package's `claude` over the bin/claude.exe stub) is done here instead.
# Exit 2 when the release cannot be installed or has no runnable CLI for this platform.
set -euo pipefail
VERSION=${1:?usage: install_release.sh VERSION [CACHE]}
CACHE=${2:-/root/.cache/cc-versions}
DIR="$CACHE/$VERSION"
PKG="$DIR/node_modules/@anthropic-ai/claude-code"
if [ ! -f "$PKG/package.json" ]; then
  mkdir -p "$DIR"
  if ! npm install --loglevel=error --no-audit --no-fund --ignore-scripts --prefix "$DIR" \
      "@anthropic-ai/claude-code@$VERSION" >"$DIR/npm.log" 2>&1; then
    echo "npm could not install @anthropic-ai/claude-code@$VERSION: $(grep -m1 "notarget\|ERR\|error" "$DIR/npm.log")" >&2
    rm -rf "$DIR"
    exit 2
  fi
fi
if [ -f "$PKG/cli.js" ]; then
  rg="$PKG/vendor/ripgrep/x64-linux/rg"
  [ -f "$rg" ] && chmod +x "$rg"     # npm drops the exec bit; without it commands vanish
  echo "$PKG/cli.js"
  exit 0
fi
native="$DIR/node_modules/@anthropic-ai/claude-code-linux-x64/claude"
if [ ! -f "$native" ]; then
  echo "$VERSION has neither cli.js nor a linux-x64 native binary" >&2
  exit 2
fi
if ! cmp -s "$native" "$PKG/bin/claude.exe"; then
  ln -f "$native" "$PKG/bin/claude.exe" 2>/dev/null || cp "$native" "$PKG/bin/claude.exe"
fi
chmod +x "$PKG/bin/claude.exe"
echo "$PKG/bin/claude.exe"
