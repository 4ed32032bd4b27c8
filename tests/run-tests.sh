#!/bin/sh
# Run test programs one after another; exit 77 means "skipped".
# Each gets a timeout so a hung test fails instead of stalling CI.
# Usage: tests/run-tests.sh SUITE PROGRAM...
suite=$1; shift
timeout_s=${TEST_TIMEOUT:-300}
passed=0 failed=0 skipped=0 failures=""
for t in "$@"; do
	name=$(basename "$t")
	log=$(mktemp)
	timeout --kill-after=10 "$timeout_s" "$t" >"$log" 2>&1
	rc=$?
	case $rc in
	0)  passed=$((passed + 1)); echo "PASS  $name" ;;
	77) skipped=$((skipped + 1)); echo "SKIP  $name: $(grep -m1 -i 'skip' "$log")" ;;
	*)  failed=$((failed + 1)); failures="$failures $name"
	    echo "FAIL  $name (exit $rc)"; sed 's/^/      /' "$log" ;;
	esac
	rm -f "$log"
done
echo "$suite: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
