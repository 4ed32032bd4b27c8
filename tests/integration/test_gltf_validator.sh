#!/bin/sh
# What the tests' glTF writer (tests/support/gltf_writer.c) writes, checked
# by an independent reader: the Khronos glTF-Validator (npm's
# gltf-validator).  The glTF unit tests and the fuzzer's seed generator
# keep every document they write (gltfw_keep, ANIMD_GLTF_KEEP) as a .glb
# and as a .gltf with its .bin; each conforming one must draw no error, each
# written outside the specification on purpose at least one.  Blender's
# export in tests/fixtures/gltf/blender and the Python package test's
# morphed triangle must draw none.  Skipped without
# node or the validator (npm install -g gltf-validator).
. "$(dirname "$0")/lib.sh"

if ! command -v node >/dev/null 2>&1; then
	echo "SKIP: node is not installed (the glTF-Validator runs on it)"
	exit 77
fi
NODE_PATH=$(npm root -g 2>/dev/null)${NODE_PATH:+:$NODE_PATH}
export NODE_PATH
if ! node -e 'require("gltf-validator")' 2>/dev/null; then
	echo "SKIP: the Khronos glTF-Validator is not installed (npm install -g gltf-validator)"
	exit 77
fi

mkdir -p "$TMP/keep" "$TMP/seeds"
for t in test_gltf test_gltf_pose; do
	if [ ! -x "$BUILD/tests/$t" ]; then
		bad "$BUILD/tests/$t is not built (make unit-tests)"
		continue
	fi
	ANIMD_GLTF_KEEP=$TMP/keep "$BUILD/tests/$t" >"$TMP/$t.log" 2>&1 || bad "$t failed: $(tail -5 "$TMP/$t.log")"
done
ANIMD_GLTF_KEEP=$TMP/keep "$BUILD/gen/gen_gltf_seeds" "$TMP/seeds" || bad "gen_gltf_seeds failed"
# The Python package test's own document (a morphed triangle, data: URI),
# when its modules import here.
if PYTHONPATH=$SRC/tests/integration:$SRC/client/python /usr/bin/python3 -c '
import sys, python_package
open(sys.argv[1], "w").write(python_package.morph_gltf())' "$TMP/keep/python_package-0.conforming.gltf" \
	>"$TMP/py.log" 2>&1; then
	ok
else
	echo "skip part: python_package.morph_gltf (its modules do not import: $(tail -1 "$TMP/py.log"))"
fi
conforming=$(ls "$TMP/keep" | grep -c '\.conforming\.glb$')
nonconforming=$(ls "$TMP/keep" | grep -c '\.nonconforming\.glb$')
# The writer kept what the tests wrote: both kinds, every program's.
[ "$conforming" -ge 10 ] && ok || bad "only $conforming conforming documents kept"
[ "$nonconforming" -ge 1 ] && ok || bad "no nonconforming document kept"
for p in test_gltf test_gltf_pose gen_gltf_seeds; do
	ls "$TMP/keep" | grep -q "^$p-" && ok || bad "nothing kept from $p"
done

node "$SRC/tests/support/gltf_validate.js" "$TMP"/keep/*.glb "$TMP"/keep/*.gltf \
	"$SRC"/tests/fixtures/gltf/blender/*.gltf "$SRC"/tests/fixtures/gltf/blender/*.glb \
	>"$TMP/report" 2>&1
rc=$?
grep -v '^PASS' "$TMP/report" | sed 's/^/    /'
[ "$rc" -eq 0 ] && ok || bad "the validator disagrees with the writer's intent (above)"
finish
