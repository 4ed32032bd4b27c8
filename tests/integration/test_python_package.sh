#!/bin/sh
# The Python package client/python/animd against the real daemon
# (python_package.py says what it checks).  Debian's python3 and its
# packages, never a virtualenv's: `make deps` installs python3-msgpack,
# python3-numpy and python3-matplotlib; without the first two it skips.
PY=/usr/bin/python3
if [ ! -x "$PY" ]; then echo "SKIP: $PY is not installed"; exit 77; fi
exec "$PY" "$(dirname "$0")/python_package.py"
