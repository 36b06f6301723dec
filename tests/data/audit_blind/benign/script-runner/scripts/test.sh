#!/bin/sh
set -e
python3 -m pytest -q
npm test --silent
