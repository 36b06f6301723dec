#!/usr/bin/env bash
set -euo pipefail
NODE=v20.11.1
curl -fsSLO "https://nodejs.org/dist/${NODE}/node-${NODE}-linux-x64.tar.xz"
curl -fsSLO "https://nodejs.org/dist/${NODE}/SHASUMS256.txt"
grep "node-${NODE}-linux-x64.tar.xz" SHASUMS256.txt | sha256sum -c -
tar -xJf "node-${NODE}-linux-x64.tar.xz" -C "$HOME/.local"
