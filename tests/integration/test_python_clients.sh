#!/bin/sh
# Clients written by others against the real daemon (python_clients.py):
# Neovim's msgpack-RPC client, and an independent msgpack decoder over
# every reply and event.  Debian's python3 and its packages, never a
# virtualenv's: `make deps` installs python3-msgpack and python3-pynvim.
PY=/usr/bin/python3
if [ ! -x "$PY" ]; then echo "SKIP: $PY is not installed"; exit 77; fi
exec "$PY" "$(dirname "$0")/python_clients.py"
