#!/bin/sh
# The documentation as a newcomer follows it: README.md stays a front door
# (at most 200 lines), every relative link of README.md and the Markdown
# files under docs/, proto/ and the top folder leads to a file that exists
# (an anchor to a heading that exists), the README's programs are the
# files of examples/ it names, byte for byte, and nothing points outside
# the repository to the project's private test data.
. "$(dirname "$0")/lib.sh"
cd "$SRC" || exit 1

lines=$(wc -l <README.md)
[ "$lines" -le 200 ] && ok || bad "README.md has $lines lines (at most 200: the rest belongs in docs/)"

docs=$(ls README.md CONTRIBUTING.md SECURITY.md CHANGELOG.md proto/PROTOCOL.md docs/*.md docs/*/*.md \
	client/python/README.md client/blender/animd_link/README.md 2>/dev/null)

# anchor FILE : the GitHub-style anchors of FILE's headings, one a line.
anchors() {
	sed -n 's/^#\{1,6\} \{1,\}//p' "$1" | tr 'A-Z' 'a-z' |
		sed 's/[^a-z0-9 _-]//g; s/ /-/g'
}

for doc in $docs; do
	dir=$(dirname "$doc")
	# Every [text](target) whose target is not a URL or a mail address.
	grep -o '\](\([^)]*\))' "$doc" | sed 's/^](//; s/)$//' | grep -v '^[a-z]*:' | sort -u >"$TMP/links"
	while IFS= read -r link; do
		path=${link%%#*}
		frag=
		case $link in *'#'*) frag=${link#*#} ;; esac
		target=$doc
		[ -n "$path" ] && target=$dir/$path
		if [ ! -e "$target" ]; then
			bad "$doc links to $link, which does not exist"
			continue
		fi
		if [ -n "$frag" ] && [ -f "$target" ]; then
			if anchors "$target" | grep -qx -- "$frag"; then ok; else
				bad "$doc links to $link: $target has no heading with that anchor"
			fi
		else
			ok
		fi
	done <"$TMP/links"
	if grep -n '\.\./shared\|shared/testdata' "$doc" >"$TMP/shared"; then
		bad "$doc points outside the repository:"; sed 's/^/    /' "$TMP/shared"
	else
		ok
	fi
done

# The working notes the project was started from are not part of it: no
# file of the repository may send a reader to them.
if git -C "$SRC" grep -n -E '(DESIGN|FORMATS|STYLE)\.md|\.\./shared/seeds' -- . ':!tests/integration/test_docs.sh' \
	>"$TMP/notes" 2>/dev/null; then
	bad "files name notes that are not in the repository:"; sed 's/^/    /' "$TMP/notes" | head
else
	ok
fi

# The README's example programs: a fenced block right after a line that
# links examples/LANG/FILE must be that file.
awk -v tmp="$TMP" '
	/\]\(examples\/[a-z]+\/[^)]*\.(c|py)\)/ {
		match($0, /\]\(examples\/[a-z]+\/[^)]*\.(c|py)\)/)
		want = substr($0, RSTART + 2, RLENGTH - 3)
	}
	/^```/ {
		if (inblock) { inblock = 0; close(out); want = ""; next }
		if (want != "") { n++; out = tmp "/block" n; print want > (tmp "/name" n); close(tmp "/name" n); inblock = 1; next }
	}
	inblock { print > out }
' README.md
found=0
for name in "$TMP"/name*; do
	[ -e "$name" ] || break
	found=$((found + 1))
	file=$(cat "$name")
	block=${name%/name*}/block${name##*/name}
	if cmp -s "$block" "$file"; then ok; else
		bad "README.md's block after its link to $file is not that file"
		diff "$file" "$block" | head -10 | sed 's/^/    /'
	fi
done
[ "$found" -ge 2 ] && ok || bad "README.md shows $found programs from examples/ (a C one and a Python one expected)"

finish
