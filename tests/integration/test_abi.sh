#!/bin/sh
# libanimclient's ABI against its releases.  client/abi/RELEASE.symbols
# holds what each release's libanimclient.so exported (nm -D --defined-only:
# name@@node); the library built now must export each of those under the
# same node; what no release exported must be in the newest node of
# client/libanimclient.map, which is named after this version
# (ANIMCLIENT_MAJOR.MINOR of VERSION: a new function is a minor version)
# and is no release's; nothing but animc_ functions is exported; the nodes
# form one chain, each inheriting the one before; the soname carries the
# major version.  Then the check must fail on libraries linked from the same
# objects through a doctored map: a released function dropped, one moved to
# another node, a new one put into a released node.
. "$(dirname "$0")/lib.sh"
so=$BUILD/libanimclient.so.1
map=$SRC/client/libanimclient.map

for tool in nm readelf; do
	command -v $tool >/dev/null 2>&1 || { echo "SKIP: $tool (binutils) is not installed"; exit 77; }
done
[ -f "$so" ] || { echo "SKIP: $so not built"; exit 77; }
v=$(cat "$SRC/VERSION")
major=${v%%.*} rest=${v#*.}
node_now=ANIMCLIENT_$major.${rest%%.*}

ls "$SRC"/client/abi/*.symbols >"$TMP/releases" 2>/dev/null && ok || bad "no release in client/abi/"
cat $(cat "$TMP/releases") | grep -v '^#' | grep . | sort -u >"$TMP/released"
[ -s "$TMP/released" ] && ok || bad "client/abi/ lists no symbol"
sed 's/.*@//' "$TMP/released" | sort -u >"$TMP/released_nodes"

# The map's nodes in order, each with the node it inherits ("-" for none).
awk '/^[A-Za-z_][A-Za-z0-9_.]* *\{/ { sub(/ *\{.*/, ""); node = $0; next }
     node != "" && /^\}/ { p = $0; sub(/^\} */, "", p); sub(/ *;.*/, "", p)
	print node, (p == "" ? "-" : p); node = "" }' "$map" >"$TMP/nodes"
[ -s "$TMP/nodes" ] && ok || bad "no version node in $map"
awk 'NR == 1 && $2 != "-" { print $1 " inherits " $2 ", but it is the first node" }
     NR > 1 && $2 != prev { print $1 " inherits " $2 ", not " prev, "the node before it" }
     { prev = $1 }' "$TMP/nodes" >"$TMP/chain"
[ -s "$TMP/chain" ] && bad "$map: the nodes are not one chain: $(cat "$TMP/chain")" || ok
newest=$(tail -n 1 "$TMP/nodes" | cut -d' ' -f1)

# abi_check LIB : what is wrong with LIB's exports, one line each; nothing
# when all is well.
abi_check() {
	nm -D --defined-only "$1" | awk '$2 != "A" { print $3 }' | sort >"$TMP/now"
	grep -v '@' "$TMP/now" | sed 's/^/unversioned: /'
	grep -v '^animc_' "$TMP/now" | sed 's/^/not an animc_ function: /'
	# Each released symbol, under its node (as the default version or,
	# kept for compatibility beside a newer one, a hidden one).
	while read -r line; do
		name=${line%%@*} node=${line##*@}
		grep -qx -e "$name@@$node" -e "$name@$node" "$TMP/now" && continue
		if grep -q "^$name@" "$TMP/now"; then
			echo "moved: $line was released, now $(grep "^$name@" "$TMP/now" | tr '\n' ' ')"
		else
			echo "removed: $line was released and is gone"
		fi
	done <"$TMP/released"
	sed 's/@.*//' "$TMP/released" | sort -u >"$TMP/released_names"
	sed -n 's/@@/ /p' "$TMP/now" | while read -r name node; do
		grep -qx "$name" "$TMP/released_names" && continue
		[ "$node" = "$newest" ] || echo "new: $name@@$node: new since the last release, not in $newest"
		grep -qx "$node" "$TMP/released_nodes" && echo "new: $name@@$node: in a released node"
		[ "$node" = "$node_now" ] ||
			echo "new: $name@@$node: VERSION $v wants new functions in $node_now (a new function is a new minor version)"
	done
}

abi_check "$so" >"$TMP/problems"
[ -s "$TMP/problems" ] && { bad "$so against client/abi/:"; sed 's/^/    /' "$TMP/problems"; } || ok
nm -D --defined-only "$so" | grep -q '@@' && ok || bad "nm prints no symbol versions for $so"
soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libanimclient.so.$major" ] && ok || bad "soname $soname, VERSION $v wants libanimclient.so.$major"

# ---- The check catches what it is for.
objs=$(ls "$BUILD"/pic/client/lib/*.o "$BUILD"/pic/proto/*.o 2>/dev/null)
if [ -z "$objs" ] || ! command -v cc >/dev/null 2>&1; then
	echo "skip part: no objects in $BUILD/pic or no cc: the check is not tried on doctored libraries"
	finish
	exit
fi
# doctored NAME FROM TO : the library with NAME's line out of node FROM's
# list and (unless TO is -) into node TO's; then its check's complaints.
doctored() {
	awk -v name="$1" -v from="$2" -v to="$3" '
		/^[A-Za-z_][A-Za-z0-9_.]* *\{/ { node = $1 }
		node == from && $1 == name ";" { next }
		{ print }
		node == to && $1 == "global:" { print "\t\t" name ";" }' "$map" >"$TMP/map"
	rm -f "$TMP/doctored.so"
	# shellcheck disable=SC2086
	cc -shared -Wl,-soname,libanimclient.so.1 -Wl,--version-script="$TMP/map" -o "$TMP/doctored.so" \
		$objs $(pkg-config --libs msgpack) -lm >"$TMP/ld.log" 2>&1 || { cat "$TMP/ld.log"; return; }
	abi_check "$TMP/doctored.so"
}
# expect_caught WHAT REGEX < complaints
expect_caught() {
	cat >"$TMP/caught"
	grep -Eq -- "$2" "$TMP/caught" && ok ||
		{ bad "the check missed $1 (wanted /$2/):"; sed 's/^/    /' "$TMP/caught" | head -10; }
}
first=$(head -n 1 "$TMP/released")
name=${first%%@*} node=${first##*@}
doctored "$name" "$node" - | expect_caught "$name dropped" "^removed: $name@"
doctored "$name" "$node" "$newest" | expect_caught "$name moved to $newest" "^moved: $name@"
new=$(nm -D --defined-only "$so" | awk '$2 != "A" { print $3 }' | grep "@@$newest\$" | sed 's/@.*//' |
	grep -vxF -f "$TMP/released_names" | head -n 1)
oldest=$(head -n 1 "$TMP/nodes" | cut -d' ' -f1)
if [ -n "$new" ] && [ "$oldest" != "$newest" ]; then
	doctored "$new" "$newest" "$oldest" | expect_caught "$new put into $oldest" "^new: $new@@$oldest"
else
	echo "skip part: no function since the last release: a new one in a released node not tried"
fi
finish
