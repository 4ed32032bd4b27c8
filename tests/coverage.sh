#!/bin/bash
# Line and branch coverage of daemon/formats, daemon/anim and proto, from
# the unit tests and the fuzz corpora replayed through the harnesses (make
# coverage builds everything with gcc --coverage in $COV first).  Prints one
# line per folder and where the reports are.
# Usage: COV=build/cov FUZZ_WORK=build/fuzz tests/coverage.sh
set -euo pipefail
cov=${COV:?} fuzz_work=${FUZZ_WORK:-build/fuzz}
report=$cov/report
folders="daemon/formats daemon/anim proto"

# Counters from an earlier run would be added to, not replaced.
find "$cov" -name '*.gcda' -delete
rm -rf "$report" "$cov/seeds"
mkdir -p "$report"

echo "== coverage: unit tests"
tests/run-tests.sh unit-cov "$cov"/tests/test_*

# Seeds our own generators write, as make fuzz writes them.
mkdir -p "$cov/seeds/x" "$cov/seeds/stream" "$cov/seeds/gltf"
"$cov/gen/gen_x_seeds" "$cov/seeds/x" >/dev/null
"$cov/gen/gen_stream_seeds" "$cov/seeds/stream"
"$cov/gen/gen_gltf_seeds" "$cov/seeds/gltf"

echo "== coverage: fuzz corpora"
for bin in "$cov"/replay/fuzz_*; do
	ext=${bin##*/fuzz_}
	list=$(mktemp)
	{ find tests/fixtures tests/fuzz/seeds -type f -name "*.$ext" 2>/dev/null || true; } >"$list"
	for dir in "$cov/seeds/$ext" "$fuzz_work/corpus-$ext"; do
		if [ -d "$dir" ]; then find "$dir" -maxdepth 1 -type f >>"$list"; fi
	done
	n=$(wc -l <"$list")
	# One input that kills a harness must not lose the counters of the
	# rest: a batch that fails is reported, and the others still count.
	if ! tr '\n' '\0' <"$list" | xargs -0 -r -n 500 timeout 600 "$bin"; then
		echo "   fuzz_$ext: a replay failed (see above)"
	fi
	echo "   fuzz_$ext: $n inputs"
	rm -f "$list"
done

filters=()
for f in $folders; do filters+=(--filter "$f/"); done
gcovr --root . --object-directory "$cov" "${filters[@]}" -j 2 \
	--html-details "$report/index.html" --json-summary "$report/summary.json" \
	--txt "$report/missing.txt" "$cov" >/dev/null

# One line per file (coverage.txt) and per folder (printed), lines and
# branches, from gcovr's summary.
fmt='def pct(a; b): if b == 0 then "-" else (a * 1000 / b | round) as $t | "\($t / 10 | floor).\($t % 10)%" end;
	def row(name; fs):
		(fs | map(.line_covered) | add) as $lc | (fs | map(.line_total) | add) as $lt
		| (fs | map(.branch_covered) | add) as $bc | (fs | map(.branch_total) | add) as $bt
		| "\(name | . + (" " * 40) | .[:$w])  lines \(pct($lc; $lt)) (\($lc)/\($lt))  branches \(pct($bc; $bt)) (\($bc)/\($bt))";'
jq -r --argjson w 34 "$fmt"' .files | sort_by(.filename)[] | row(.filename; [.])' \
	"$report/summary.json" >"$report/coverage.txt"
echo "== coverage"
for f in $folders; do
	jq -r --argjson w 8 --arg dir "$f/" --arg name "${f##*/}" \
		"$fmt"' row($name; [.files[] | select(.filename | startswith($dir))])' "$report/summary.json"
done
echo "report: $report/index.html (annotated, per file); in text: $report/coverage.txt" \
	"(per file), $report/missing.txt (lines not reached)"
