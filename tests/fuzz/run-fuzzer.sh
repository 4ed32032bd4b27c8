#!/bin/bash
# Run one libFuzzer harness for SECONDS, its corpus seeded from our own
# fixtures (the harness name says which extension it eats).
# Usage: tests/fuzz/run-fuzzer.sh BINARY SECONDS WORKDIR
set -euo pipefail
bin=$1 seconds=$2 work=$3
name=$(basename "$bin")
ext=${name#fuzz_}
corpus=$work/corpus-$ext
mkdir -p "$corpus" "$work/crashes-$ext"
# A seed folder may be missing: that is not a failure.
{ find tests/fixtures tests/fuzz/seeds -type f -name "*.$ext" 2>/dev/null || true; } |
	while read -r f; do cp -n "$f" "$corpus/" 2>/dev/null || true; done
dict=tests/fuzz/$ext.dict
set -- -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$work/crashes-$ext/"
[ -f "$dict" ] && set -- "$@" -dict="$dict"
echo "== fuzz $name for ${seconds}s (corpus $corpus)"
"$bin" "$@" "$corpus" 2>&1 | grep -E '^(#[0-9]+.*(DONE|pulse)|stat::|==|SUMMARY|artifact)' | tail -n 8
