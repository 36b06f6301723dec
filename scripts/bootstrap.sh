#!/usr/bin/env bash
# Create .venv with the best available Python (3.13 > 3.12 > python3) and install skillmanager into it.
# Usage: scripts/bootstrap.sh [EXTRAS]   e.g. scripts/bootstrap.sh test
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"
pick_python() {
  local candidate
  for candidate in python3.13 python3.12; do
    # pyenv shims exist for every installed version but only run the active ones: test that it really runs
    if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c 'import venv' >/dev/null 2>&1; then
      echo "$candidate"; return
    fi
  done
  if command -v pyenv >/dev/null 2>&1; then
    for candidate in "$(pyenv root)"/versions/3.13*/bin/python3 "$(pyenv root)"/versions/3.12*/bin/python3; do
      [ -x "$candidate" ] && { echo "$candidate"; return; }
    done
  fi
  echo python3  # 3.11 works too: pyproject pins PySide6 < 6.12 there
}
if [ ! -x .venv/bin/python ]; then
  py="$(pick_python)"
  echo "skillmanager: creating .venv with $("$py" --version 2>&1)" >&2
  "$py" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
if [ -n "$extras" ]; then
  .venv/bin/python -m pip install --quiet -e ".[$extras]"
else
  .venv/bin/python -m pip install --quiet -e .
fi
