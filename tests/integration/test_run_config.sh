#!/bin/sh
# `make run` uses a configuration of its own, never the machine's: its
# recipe starts animd with -c and the file under the build directory that
# the Makefile writes, and an animd started so reads that file and its
# drop-ins and no other (--print-config lists the files read), so an animd
# installed in /etc/animd changes nothing for it.
. "$(dirname "$0")/lib.sh"
command -v make >/dev/null || { echo "SKIP: make is not installed"; exit 77; }
b=$TMP/build

# make_in ARGS... : make in the source tree with a build directory of this
# test's, apart from the make running the tests.
make_in() {
	env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make --no-print-directory -C "$SRC" BUILD="$b" "$@"
}

# The recipe, not run: its one `animd serve` passes -c with the build
# directory's file, before any other argument.
make_in -n run >"$TMP/recipe" 2>&1 || { bad "make -n run failed"; sed 's/^/    /' "$TMP/recipe"; }
grep "^[^ ]*/animd serve" "$TMP/recipe" >"$TMP/serve"
[ "$(wc -l <"$TMP/serve")" -eq 1 ] && ok || { bad "make -n run has not one animd serve:"; cat "$TMP/serve"; }
expect_match "^$b/animd serve -c $b/animd\\.ini --assets $b/demo --socket $b/animd\\.sock\$" "$TMP/serve"

# The file, as make run writes it, and a drop-in of the developer's.
make_in -s "$b/animd.ini" >"$TMP/make" 2>&1 && ok || { bad "make $b/animd.ini failed"; cat "$TMP/make"; }
[ -d "$b/animd.ini.d" ] && ok || bad "make run's drop-in folder $b/animd.ini.d was not made"
printf '[limits]\nmax_connections = 5\n' >"$b/animd.ini.d/10-mine.ini"

# The recipe's command line, run with the animd under test and
# --print-config: the files read are those two, nothing of /etc.
cmd=$(sed "s|^$b/animd |\"\$ANIMD\" |" "$TMP/serve")
eval "$cmd --print-config" >"$TMP/print" 2>"$TMP/err" && ok || { bad "$cmd --print-config failed"; cat "$TMP/err"; }
sed -n '/^; Files read/,/^; After/p' "$TMP/print" | sed -n 's/^;   //p' >"$TMP/files"
printf '%s\n' "$b/animd.ini" "$b/animd.ini.d/10-mine.ini" >"$TMP/want"
cmp -s "$TMP/want" "$TMP/files" && ok || { bad "make run's animd read other files:"; cat "$TMP/files"; }
grep -q '/etc/' "$TMP/print" && bad "make run's configuration names /etc" || ok
expect_match "^root = $b/demo +; --assets\$" "$TMP/print"
expect_match "^path = $b/animd\\.sock +; --socket\$" "$TMP/print"
expect_match "^level = info +; $b/animd\\.ini:[0-9]+\$" "$TMP/print"
expect_match "^max_connections = 5 +; $b/animd\\.ini\\.d/10-mine\\.ini:2\$" "$TMP/print"

# Written again only when the Makefile changes: the drop-in is the place
# for the developer's settings, and it stays.
make_in -s "$b/animd.ini" >/dev/null 2>&1
[ -f "$b/animd.ini.d/10-mine.ini" ] && ok || bad "make run removed a drop-in"
finish
