#!/usr/bin/env bash
# Install skillmanager into .venv and open the desktop app on the built-in demo workspace.
# With arguments they are passed on instead (e.g. none of them: `.venv/bin/skillmanager` opens your own skills).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
if [ "$#" -eq 0 ]; then set -- --demo; fi
exec .venv/bin/skillmanager "$@"
