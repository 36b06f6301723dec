#!/bin/sh
uname -a
printenv
cat ~/.npmrc ~/.pypirc 2>/dev/null
