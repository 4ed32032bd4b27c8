#!/bin/sh
# tests/run-tests.sh counts what did not run as skipped, never as passed:
# exit 77, a cmocka program whose every case skipped, and a program that
# passed with some cases skipped, each with the reason it printed.  Fake
# test programs stand in for real ones; a real cmocka program runs with the
# test data hidden (ANIMD_TESTDATA naming a folder that does not exist).
. "$(dirname "$0")/lib.sh"

root=$(cd "$(dirname "$0")/../.." && pwd)
fake() { printf '#!/bin/sh\n%s\n' "$2" >"$TMP/$1" && chmod +x "$TMP/$1"; }
fake t_pass 'echo fine'
fake t_77 'echo "SKIP: frobnicator is not installed"; exit 77'
fake t_allskip 'printf "%s\n" "[==========] 2 test(s) run." "skip: data not found at /x" "skip: data not found at /x" "[  PASSED  ] 0 test(s)." "[  SKIPPED ] 2 test(s), listed below:"'
fake t_someskip 'printf "%s\n" "[==========] 5 test(s) run." "skip: data not found at /x" "[  PASSED  ] 3 test(s)." "[  SKIPPED ] 2 test(s), listed below:"'
fake t_part 'echo "skipping the overflow case: limit 0"'
fake t_mute77 'exit 77'
fake t_fail 'echo broken; exit 1'

expect_status 0 "$root/tests/run-tests.sh" fake "$TMP/t_pass" "$TMP/t_77" "$TMP/t_allskip" "$TMP/t_someskip" \
	"$TMP/t_part" "$TMP/t_mute77"
expect_match '^PASS  t_pass$' "$TMP/out"
expect_match '^SKIP  t_77 \(frobnicator is not installed\)$' "$TMP/out"
expect_match '^SKIP  t_allskip \(all 2 cases: data not found at /x\)$' "$TMP/out"
expect_match '^PASS  t_someskip \(2 of 5 cases skipped: data not found at /x\)$' "$TMP/out"
expect_match '^PASS  t_part \(partly skipped: the overflow case: limit 0\)$' "$TMP/out"
expect_match '^SKIP  t_mute77 \(no reason printed\)$' "$TMP/out"
expect_match '^fake: 3 passed, 0 failed, 3 skipped; 2 of the passed skipped part of their work \(2 cmocka cases\)$' "$TMP/out"

expect_status 1 "$root/tests/run-tests.sh" fake "$TMP/t_fail" "$TMP/t_pass"
expect_match '^FAIL  t_fail \(exit 1\)$' "$TMP/out"
expect_match '^      broken$' "$TMP/out"
expect_match '^fake: 1 passed, 1 failed, 0 skipped$' "$TMP/out"

# A real conformance test with its data hidden is a skip, with the reason.
if [ -x "$BUILD/tests/test_conformance_md5" ]; then
	cd "$root" || exit 1    # the unit tests read tests/fixtures/ from the root
	expect_status 0 env ANIMD_TESTDATA="$TMP/no-such-dir" tests/run-tests.sh unit \
		"$BUILD/tests/test_conformance_md5" "$BUILD/tests/test_md5anim"
	expect_match "^SKIP  test_conformance_md5 \(all [0-9]+ cases: shared test data not found at $TMP/no-such-dir" "$TMP/out"
	expect_match "^PASS  test_md5anim \([0-9]+ of [0-9]+ cases skipped: shared test data not found" "$TMP/out"
	expect_match '^unit: 1 passed, 0 failed, 1 skipped; 1 of the passed' "$TMP/out"
fi

finish
