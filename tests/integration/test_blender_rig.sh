#!/bin/sh
# The Blender add-on's arithmetic with Debian's python3, no Blender needed
# (blender_rig.py says what it checks).
PY=/usr/bin/python3
if [ ! -x "$PY" ]; then echo "SKIP: $PY is not installed"; exit 77; fi
exec "$PY" "$(dirname "$0")/blender_rig.py"
