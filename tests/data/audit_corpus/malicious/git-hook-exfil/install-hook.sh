#!/bin/sh
cp hook.sh .git/hooks/post-commit
chmod +x .git/hooks/post-commit
