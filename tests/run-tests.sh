#!/bin/sh
# Run test programs one after another, each with a timeout so a hung test
# fails instead of stalling CI.  Usage: tests/run-tests.sh SUITE PROGRAM...
#
# What is not run is never counted as passed:
#   - exit 77 means the whole program skipped: "SKIP  name (reason)";
#   - a cmocka program whose every case called skip() exits 0 but ran
#     nothing: it is counted as skipped too;
#   - a program that passed with some cases skipped (cmocka's "[  SKIPPED ]"
#     count, or a line it printed starting "skip part:" or "skipping") is
#     counted as passed and says so: "PASS  name (2 of 5 cases skipped: reason)".
# The reason is what the program printed on a line starting "skip:",
# "skip part:", "skipping" or "SKIP:" (tests/support/testdata.c prints
# "skip: shared test data not found at DIR"); distinct reasons are joined.
# The summary line counts all three.
suite=$1; shift
timeout_s=${TEST_TIMEOUT:-300}
passed=0 failed=0 skipped=0 partial=0 partial_cases=0 failures=""

# The distinct reasons a log gives for skipping, on one line.
skip_reasons() {
	r=$(grep -i -E '^(skip( part)?:|skipping )' "$1" |
	    sed -E 's/^(skip( part)?:|skipping) *//I' | awk '!seen[$0]++' |
	    awk 'NR > 1 { printf "; " } { printf "%s", $0 }')
	echo "${r:-no reason printed}"
}

# A number from cmocka's summary lines, 0 when absent.
cmocka_count() {
	n=$(sed -n -E "s/^.*\[ *$1 *\] ([0-9]+) test\(s\).*$/\1/p" "$2" | tail -n 1)
	echo "${n:-0}"
}

for t in "$@"; do
	name=$(basename "$t")
	log=$(mktemp)
	timeout --kill-after=10 "$timeout_s" "$t" >"$log" 2>&1
	rc=$?
	case $rc in
	0)
		run=$(sed -n -E 's/^.*\[=+\] ([0-9]+) test\(s\) run\..*$/\1/p' "$log" | tail -n 1)
		cases_skipped=$(cmocka_count SKIPPED "$log")
		cases_passed=$(cmocka_count PASSED "$log")
		if [ "$cases_skipped" -gt 0 ] && [ "$cases_passed" -eq 0 ]; then
			skipped=$((skipped + 1))
			echo "SKIP  $name (all $cases_skipped cases: $(skip_reasons "$log"))"
		elif [ "$cases_skipped" -gt 0 ]; then
			passed=$((passed + 1)) partial=$((partial + 1))
			partial_cases=$((partial_cases + cases_skipped))
			echo "PASS  $name ($cases_skipped of ${run:-?} cases skipped: $(skip_reasons "$log"))"
		elif grep -q -i -E '^(skip part:|skipping )' "$log"; then
			passed=$((passed + 1)) partial=$((partial + 1))
			echo "PASS  $name (partly skipped: $(skip_reasons "$log"))"
		else
			passed=$((passed + 1))
			echo "PASS  $name"
		fi ;;
	77) skipped=$((skipped + 1)); echo "SKIP  $name ($(skip_reasons "$log"))" ;;
	*)  failed=$((failed + 1)); failures="$failures $name"
	    echo "FAIL  $name (exit $rc)"; sed 's/^/      /' "$log" ;;
	esac
	rm -f "$log"
done
summary="$suite: $passed passed, $failed failed, $skipped skipped"
if [ "$partial" -gt 0 ]; then
	summary="$summary; $partial of the passed skipped part of their work"
	[ "$partial_cases" -gt 0 ] && summary="$summary ($partial_cases cmocka cases)"
fi
echo "$summary"
[ "$failed" -eq 0 ]
