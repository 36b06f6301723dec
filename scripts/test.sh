#!/usr/bin/env bash
# Install skillmanager with its test extras into .venv and run the whole test suite offscreen.
# Extra arguments go to pytest (e.g. `-m "not packaging"` to skip the PyInstaller build locally).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh test
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"
exec .venv/bin/python -m pytest -p no:cacheprovider "$@"
