#!/bin/sh
# sample's bind pose and skin weights against the real daemon
# (sample_bind.py says what it checks), with Debian's python3.
PY=/usr/bin/python3
if [ ! -x "$PY" ]; then echo "SKIP: $PY is not installed"; exit 77; fi
exec "$PY" "$(dirname "$0")/sample_bind.py"
