#!/usr/bin/env bash
# Reads docs/guide.md and docs/missing.sh.
echo "nothing.txt here is code, not a comment"
