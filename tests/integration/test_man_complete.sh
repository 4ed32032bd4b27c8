#!/bin/sh
# The manual is complete and says what the programs accept:
#  - every function libanimclient exports (each animc_ symbol of
#    client/libanimclient.map and of the built libanimclient.so.1), and
#    ANIMC_CHECK_VERSION, has a page of its name that man(1) finds in man/
#    laid out as make install lays it out (the page itself or a .so link to
#    its group's), and the page it lands on names it in NAME and SYNOPSIS;
#  - every command's SYNOPSIS (animd serve, check, inspect and sample in
#    animd(8) and in animd-COMMAND(1), animctl and each of its commands in
#    animctl(1)) lists exactly the options of the usage lines of its --help,
#    every option its --help names is documented with the command, and
#    every option the page documents for it (.TP) is one its --help names.
#    -h, --help and --version may be left out on either side.
. "$(dirname "$0")/lib.sh"
so=$BUILD/libanimclient.so.1
ctl=$BUILD/animctl

# ---- Every exported function has a page.
mkdir -p "$TMP/man"
for page in "$SRC"/man/*.[1-8]; do
	mkdir -p "$TMP/man/man${page##*.}"
	cp "$page" "$TMP/man/man${page##*.}/"
done
unset MANOPT MANSECT MANPL MANROFFSEQ
# lookup SECTION NAME : the page that `man SECTION NAME` shows, .so links
# followed; nothing when there is none.  Without man(1), the same rule done
# here: the file of that name, or the file its .so line names.
lookup() {
	if command -v man >/dev/null 2>&1; then
		MANPATH=$TMP/man man -w "$1" "$2" 2>/dev/null
	elif [ -f "$TMP/man/man$1/$2.$1" ]; then
		target=$(sed -n '1s/^\.so  *//p' "$TMP/man/man$1/$2.$1")
		if [ -n "$target" ]; then
			[ -f "$TMP/man/$target" ] && echo "$TMP/man/$target"
		else
			echo "$TMP/man/man$1/$2.$1"
		fi
	fi
}

# plain FILE... : roff with its font changes, quotes and escapes undone, as
# far as reading words and options goes (macros stay at line starts).
plain() {
	sed -e 's/\\f[BIRP]//g' -e 's/\\f(..//g' -e 's/\\-/-/g' -e 's/\\&//g' -e 's/\\~/ /g' \
		-e 's/\\(aq/'"'"'/g' -e 's/"//g' "$@"
}
# section NAME < plain page : the lines of section .SH NAME.
section() {
	awk -v want="$1" '/^\.SH / { sub(/^\.SH /, ""); on = ($0 == want); next } on'
}

sed -n 's/^[[:space:]]*\(animc_[a-z0-9_]*\);$/\1/p' "$SRC/client/libanimclient.map" >"$TMP/symbols"
[ -s "$TMP/symbols" ] && ok || bad "no animc_ symbol listed in client/libanimclient.map"
if command -v nm >/dev/null 2>&1 && [ -f "$so" ]; then
	nm -D --defined-only "$so" | awk '$3 ~ /^animc_/ { sub(/@.*/, "", $3); print $3 }' >>"$TMP/symbols"
else
	echo "skip part: nm or $so missing: the map's symbols only"
fi
echo ANIMC_CHECK_VERSION >>"$TMP/symbols"
: >"$TMP/missing"
: >"$TMP/unnamed"
for sym in $(sort -u "$TMP/symbols"); do
	page=$(lookup 3 "$sym" | head -n 1)
	if [ -z "$page" ]; then
		echo "$sym" >>"$TMP/missing"
		continue
	fi
	plain "$page" | section NAME | tr ',\n' '  ' | grep -qw -- "$sym" &&
		plain "$page" | section SYNOPSIS | grep -q -- "$sym(" ||
		echo "$sym ($(basename "$page"))" >>"$TMP/unnamed"
done
[ -s "$TMP/missing" ] && bad "no manual page for: $(tr '\n' ' ' <"$TMP/missing")" || ok
[ -s "$TMP/unnamed" ] &&
	bad "the page man finds does not name them in NAME and SYNOPSIS: $(tr '\n' ' ' <"$TMP/unnamed")" || ok

# ---- SYNOPSIS against --help.
META='^(-h|--help|--version)$'
# opts : the options named on stdin, one a line, sorted, unique.
opts() {
	grep -oE '(^|[^A-Za-z0-9_-])--?[a-z][a-z0-9-]*' | sed 's/^[^-]*//' | sort -u
}
# usage < help : its usage lines ("usage: ..." and the lines indented under it).
usage() {
	awk '/^usage: / { u = 1; sub(/^usage: /, ""); print; next } u && /^    / { print; next } { u = 0 }'
}
# entries < plain page : the SYNOPSIS's forms, one a line, "TOOL COMMAND
# ..." (brackets around the command dropped; "a | b" written "a|b").
entries() {
	section SYNOPSIS | awk '
		/^\.(br|PP|sp)/ { if (e != "") print e; e = ""; next }
		/^\.(nf|fi)/ { next }
		{ sub(/^\.[A-Za-z]+ */, ""); e = e " " $0 }
		END { if (e != "") print e }' |
		sed -e 's/  */ /g' -e 's/^ //' -e 's/ *| */|/g' -e 's/^\([a-z]*\) \[\([a-z]*\)\]/\1 \2/' \
			-e 's/^\([a-z]*\) \[ \([a-z]*\) \]/\1 \2/'
}
# forms TOOL COMMAND < entries : the forms of COMMAND ("" for the tool
# itself: forms whose second word is an option or in capitals).
forms() {
	awk -v tool="$1" -v cmd="$2" '$1 != tool { next }
		{ w = $2; top = (w ~ /^-/ || w ~ /^[A-Z[]/ || w == "") }
		cmd == "" { if (top) print; next }
		{ n = split(w, c, "|"); for (i = 1; i <= n; i++) if (c[i] == cmd) { print; next } }'
}
# commands_of < plain headings or help lines : the commands each names:
# pieces between ", ", the first word of each, split at "|".
commands_of() {
	awk '{ n = split($0, p, /, /); for (i = 1; i <= n; i++) { split(p[i], w, " ");
		m = split(w[1], c, "|"); for (k = 1; k <= m; k++) if (c[k] ~ /^[a-z][a-z-]*$/) print c[k] } }'
}
# tags < plain text : the .TP tag lines.
tags() {
	awk '/^\.TP/ { t = 1; next } t { print; t = 0 }'
}
# compare WHAT WANT GOT : equal option lists, else say which differ.
compare() {
	grep -Ev "$META" "$2" >"$TMP/cmp.want"
	grep -Ev "$META" "$3" >"$TMP/cmp.got"
	if cmp -s "$TMP/cmp.want" "$TMP/cmp.got"; then ok; else
		bad "$1: --help's usage names [$(comm -23 "$TMP/cmp.want" "$TMP/cmp.got" | tr '\n' ' ')]," \
			"the page's SYNOPSIS [$(comm -13 "$TMP/cmp.want" "$TMP/cmp.got" | tr '\n' ' ')] alone"
	fi
}
# covered WHAT WANT HAVE SIDE : every option of WANT is in HAVE, else name
# the others as missing from SIDE.
covered() {
	grep -Ev "$META" "$2" | comm -23 - "$3" >"$TMP/cov.extra"
	[ -s "$TMP/cov.extra" ] && bad "$1: $4 misses $(tr '\n' ' ' <"$TMP/cov.extra")" || ok
}

# check_tool WHAT HELP PAGE FORMS DOCUMENTED TAGS : the three rules for one
# command, from its --help text, the plain page, the page's forms of it, the
# text that documents it and its option tags.
check_tool() {
	what=$1
	[ -s "$4" ] && ok || { bad "$what: no form of it in the SYNOPSIS of $(basename "$3")"; return; }
	usage <"$2" | grep -q . && ok || bad "$what: --help printed no usage line"
	# A help shared by several commands (pause, resume, stop, seek, speed):
	# the usage lines that name this one, when any does.
	# Each form is a line that starts with the tool's name and the lines
	# indented under it.
	usage <"$2" | awk '/^ *(animd|animctl) / { if (f != "") print f; f = $0; next } { f = f " " $0 }
		END { if (f != "") print f }' >"$TMP/ul"
	word=${what##* }
	grep -Eq "(^|[ |])$word( |$)" "$TMP/ul" && grep -E "(^|[ |])$word( |$)" "$TMP/ul" >"$TMP/ul2" &&
		mv "$TMP/ul2" "$TMP/ul"
	opts <"$TMP/ul" >"$TMP/u"
	opts <"$4" >"$TMP/s"
	compare "$what ($(basename "$3"))" "$TMP/u" "$TMP/s"
	opts <"$2" >"$TMP/a"
	cat "$4" "$5" | opts >"$TMP/d"
	covered "$what" "$TMP/a" "$TMP/d" "$(basename "$3") (options its --help names)"
	opts <"$6" >"$TMP/t"
	grep -Ev "$META" "$TMP/a" >"$TMP/a2"
	covered "$what" "$TMP/t" "$TMP/a2" "--help (options $(basename "$3") documents)"
}

# animd: each command of `animd --help`; serve in animd(8) (its COMMANDS
# subsection), the others in animd-COMMAND(1) and in animd(8)'s SYNOPSIS.
"$ANIMD" --help >"$TMP/animd.help" 2>&1 || bad "animd --help failed"
awk '/^commands:/ { c = 1; next } c && /^  [a-z]/ { print $1 } /^$/ { c = 0 }' "$TMP/animd.help" |
	sort -u >"$TMP/animd.cmds"
[ "$(wc -l <"$TMP/animd.cmds")" -ge 4 ] && ok || bad "animd --help lists no commands: $(cat "$TMP/animd.help")"
plain "$SRC/man/animd.8" >"$TMP/animd.8"
entries <"$TMP/animd.8" >"$TMP/animd.8.forms"
forms animd "" <"$TMP/animd.8.forms" >"$TMP/f"
usage <"$TMP/animd.help" | opts >"$TMP/u"
opts <"$TMP/f" >"$TMP/s"
compare "animd (animd.8)" "$TMP/u" "$TMP/s"
awk '$1 == "animd" && $2 ~ /^[a-z]/ { print $2 }' "$TMP/animd.8.forms" | sort -u |
	comm -23 - "$TMP/animd.cmds" >"$TMP/extra"
[ -s "$TMP/extra" ] && bad "animd.8's SYNOPSIS has commands animd --help does not: $(cat "$TMP/extra")" || ok
for cmd in $(cat "$TMP/animd.cmds"); do
	"$ANIMD" "$cmd" --help >"$TMP/help" 2>&1 || bad "animd $cmd --help failed"
	forms animd "$cmd" <"$TMP/animd.8.forms" >"$TMP/f8"
	if [ "$cmd" = serve ]; then
		awk '/^\.SS / { on = ($0 ~ /^\.SS animd serve$/); next } /^\.SH / { on = 0 } on' \
			"$TMP/animd.8" >"$TMP/doc"
		tags <"$TMP/doc" >"$TMP/tags"
		check_tool "animd serve" "$TMP/help" "$SRC/man/animd.8" "$TMP/f8" "$TMP/doc" "$TMP/tags"
		continue
	fi
	page=$SRC/man/animd-$cmd.1
	if [ ! -f "$page" ]; then
		bad "animd $cmd has no page man/animd-$cmd.1"
		continue
	fi
	grep -q "^\.BR animd\\\\-$cmd (1)" "$SRC/man/animd.8" && ok || bad "animd.8 does not refer to animd-$cmd(1)"
	plain "$page" >"$TMP/page"
	entries <"$TMP/page" | forms animd "$cmd" >"$TMP/f"
	section OPTIONS <"$TMP/page" | tags >"$TMP/tags"
	check_tool "animd $cmd" "$TMP/help" "$page" "$TMP/f" "$TMP/page" "$TMP/tags"
	# animd(8)'s SYNOPSIS lists the command too, with the same options.
	[ -s "$TMP/f8" ] && ok || bad "animd $cmd: no form of it in animd.8's SYNOPSIS"
	usage <"$TMP/help" | opts >"$TMP/u"
	opts <"$TMP/f8" >"$TMP/s"
	compare "animd $cmd (animd.8)" "$TMP/u" "$TMP/s"
done

# animctl: the tool (its global options) and each command of animctl --help.
"$ctl" --help >"$TMP/ctl.help" 2>&1 || bad "animctl --help failed"
awk '/^commands:/ { c = 1; next } c && /^  [a-z]/ { sub(/^  /, ""); sub(/  .*/, ""); print } /^$/ { c = 0 }' \
	"$TMP/ctl.help" | commands_of | sort -u >"$TMP/ctl.cmds"
[ "$(wc -l <"$TMP/ctl.cmds")" -ge 10 ] && ok || bad "animctl --help lists no commands: $(cat "$TMP/ctl.help")"
plain "$SRC/man/animctl.1" >"$TMP/animctl.1"
entries <"$TMP/animctl.1" >"$TMP/ctl.forms"
section "GLOBAL OPTIONS" <"$TMP/animctl.1" >"$TMP/global"
forms animctl "" <"$TMP/ctl.forms" >"$TMP/f"
tags <"$TMP/global" >"$TMP/tags"
check_tool animctl "$TMP/ctl.help" "$SRC/man/animctl.1" "$TMP/f" "$TMP/animctl.1" "$TMP/tags"
awk '$1 == "animctl" && $2 ~ /^[a-z]/ { print $2 }' "$TMP/ctl.forms" | commands_of | sort -u |
	comm -3 - "$TMP/ctl.cmds" >"$TMP/extra"
[ -s "$TMP/extra" ] && bad "commands in animctl.1's SYNOPSIS (left) or animctl --help (right) alone:" \
	"$(tr '\n\t' ' ' <"$TMP/extra")" || ok
for cmd in $(cat "$TMP/ctl.cmds"); do
	"$ctl" "$cmd" --help >"$TMP/help" 2>&1 || bad "animctl $cmd --help failed"
	forms animctl "$cmd" <"$TMP/ctl.forms" >"$TMP/f"
	# The COMMANDS subsections whose heading names the command.
	awk -v cmd="$cmd" '
		/^\.SS / { h = $0; sub(/^\.SS /, "", h); on = 0
			n = split(h, p, /, /)
			for (i = 1; i <= n; i++) { split(p[i], w, " "); m = split(w[1], c, "|")
				for (k = 1; k <= m; k++) if (c[k] == cmd) on = 1 } }
		/^\.SH / { on = 0 } on' "$TMP/animctl.1" >"$TMP/doc"
	[ -s "$TMP/doc" ] && ok || bad "animctl $cmd: no subsection of animctl.1 describes it"
	tags <"$TMP/doc" >"$TMP/tags"
	cat "$TMP/global" >>"$TMP/doc"
	check_tool "animctl $cmd" "$TMP/help" "$SRC/man/animctl.1" "$TMP/f" "$TMP/doc" "$TMP/tags"
done
finish
