#!/bin/sh
# make install / make uninstall into a temporary DESTDIR (PREFIX=/usr, the
# way packaging stages a tree): exactly the expected files, the
# placeholders filled in; the installed units pass systemd-analyze verify,
# the sysusers.d and tmpfiles.d files make the user, group and asset
# directory in a scratch root; a program built against the installed tree
# through pkg-config, shared and --static, talks to the installed animd
# started from the DESTDIR on a private socket; uninstall leaves no file.
# Then a live-style install (no DESTDIR, every directory under $TMP) keeps
# an existing configuration, and uninstall keeps an edited one and the
# administrator's drop-ins.
. "$(dirname "$0")/lib.sh"
for tool in pkg-config cc make; do
	command -v $tool >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
v=$(cat "$SRC/VERSION")

# make_in ARGS... : make in the source tree with this test's build
# directory, quietly, apart from the make running the tests.
make_in() {
	env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$SRC" BUILD="$BUILD" "$@"
}

dest=$TMP/dest
sysvar() { pkg-config --variable="$1" systemd 2>/dev/null || true; }
unitdir=$(sysvar systemdsystemunitdir); unitdir=${unitdir:-/usr/lib/systemd/system}
sysusersdir=$(sysvar sysusersdir); sysusersdir=${sysusersdir:-/usr/lib/sysusers.d}
tmpfilesdir=$(sysvar tmpfilesdir); tmpfilesdir=${tmpfilesdir:-/usr/lib/tmpfiles.d}

expect_status 0 make_in install DESTDIR="$dest" PREFIX=/usr
{
	printf '%s\n' /usr/bin/animd /usr/bin/animctl /usr/lib/libanimclient.so.1 \
		/usr/lib/libanimclient.so /usr/lib/libanimclient.a /usr/include/animclient.h \
		/usr/lib/pkgconfig/animclient.pc "$unitdir/animd.service" "$unitdir/animd.socket" \
		"$sysusersdir/animd.conf" "$tmpfilesdir/animd.conf" /etc/animd/animd.ini
	for m in "$SRC"/man/*.[1-8]; do
		[ -f "$m" ] && echo "/usr/share/man/man${m##*.}/${m##*/}"
	done
	for c in "$SRC"/completion/*; do
		[ -f "$c" ] && echo "/usr/share/bash-completion/completions/$(basename "$c" .bash)"
	done
} | sort >"$TMP/want"
(cd "$dest" && find . ! -type d | sed 's|^\.||' | sort) >"$TMP/got"
if cmp -s "$TMP/want" "$TMP/got"; then ok; else
	bad "installed files differ from the expected ones"; diff "$TMP/want" "$TMP/got" | sed 's/^/    /'
fi
[ "$(readlink "$dest/usr/lib/libanimclient.so")" = libanimclient.so.1 ] && ok ||
	bad "libanimclient.so does not point to libanimclient.so.1"
[ -x "$dest/usr/bin/animd" ] && [ -x "$dest/usr/bin/animctl" ] && ok || bad "binaries not executable"
grep -rIl '@[A-Z]*@' "$dest" >"$TMP/placeholders" && { bad "placeholders left:"; cat "$TMP/placeholders"; } || ok
expect_match '^ExecStart=/usr/bin/animd serve -c /etc/animd/animd\.ini$' "$dest$unitdir/animd.service"
expect_match '^User=animd$' "$dest$unitdir/animd.service"
expect_match '^SocketGroup=animd$' "$dest$unitdir/animd.socket"
cmp -s "$SRC/conf/animd.ini" "$dest/etc/animd/animd.ini" && ok || bad "the configuration is not conf/animd.ini"
[ -d "$dest/etc/animd/animd.ini.d" ] && ok || bad "install did not make the drop-in folder /etc/animd/animd.ini.d"
expect_match "^Version: $v\$" "$dest/usr/lib/pkgconfig/animclient.pc"
expect_match '^prefix=/usr$' "$dest/usr/lib/pkgconfig/animclient.pc"

# The units, verified in a copy of the tree given what they name from the
# host's systemd (targets, kill); their Documentation= pages are installed
# from man/, so every complaint counts.
if command -v systemd-analyze >/dev/null && [ -f "/lib/systemd/system/sysinit.target" ]; then
	root=$TMP/verify
	cp -a "$dest" "$root"
	mkdir -p "$root/bin" "$root$unitdir"
	cp /bin/kill "$root/bin/"
	for t in sysinit basic local-fs sockets multi-user shutdown; do
		cp "/lib/systemd/system/$t.target" "$root$unitdir/"
	done
	man=--man=yes
	command -v man >/dev/null || man=--man=no
	MANPATH=$root/usr/share/man systemd-analyze verify "$man" --root="$root" animd.service animd.socket \
		>"$TMP/verify.log" 2>&1
	cp "$TMP/verify.log" "$TMP/complaints"
	if [ -s "$TMP/complaints" ]; then bad "systemd-analyze verify:"; sed 's/^/    /' "$TMP/complaints"; else ok; fi

	# The sysusers.d and tmpfiles.d files, applied to that scratch root.
	if [ "$(id -u)" -eq 0 ] && command -v systemd-sysusers >/dev/null; then
		expect_status 0 systemd-sysusers --root="$root"
		expect_match '^animd:x:[0-9]+:[0-9]+:[^:]*:[^:]*:/usr/sbin/nologin$' "$root/etc/passwd"
		expect_match '^animd:x:[0-9]+:' "$root/etc/group"
		expect_status 0 systemd-tmpfiles --root="$root" --create animd.conf
		gid=$(sed -n 's/^animd:x:\([0-9]*\):.*/\1/p' "$root/etc/group")
		[ "$(stat -c '%a %u %g' "$root/srv/animd" 2>/dev/null)" = "2775 0 $gid" ] && ok ||
			bad "tmpfiles made /srv/animd $(stat -c '%a %u %g' "$root/srv/animd" 2>&1)"
	else
		echo "note: not root or no systemd-sysusers: sysusers.d and tmpfiles.d not applied"
	fi
else
	echo "note: no systemd-analyze or host units: the installed units are not verified"
fi

# A program built against the installed tree alone.
export PKG_CONFIG_PATH="$dest/usr/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$dest"
expect_status 0 pkg-config --modversion animclient
[ "$(cat "$TMP/out")" = "$v" ] && ok || bad "pkg-config --modversion animclient: $(cat "$TMP/out")"
probe=$SRC/tests/integration/install_probe.c
# shellcheck disable=SC2046
expect_status 0 cc -Wall -Werror $(pkg-config --cflags animclient) -o "$TMP/probe_shared" "$probe" \
	$(pkg-config --libs animclient)
# shellcheck disable=SC2046
expect_status 0 cc -Wall -Werror $(pkg-config --cflags --static animclient) -static -o "$TMP/probe_static" \
	"$probe" $(pkg-config --static --libs animclient)
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
LD_LIBRARY_PATH=$dest/usr/lib ldd "$TMP/probe_shared" >"$TMP/ldd" 2>&1
expect_match "libanimclient\.so\.1 => $dest/usr/lib/libanimclient\.so\.1" "$TMP/ldd"
readelf -d "$TMP/probe_static" 2>/dev/null | grep -q 'NEEDED' && bad "probe_static needs shared libraries" || ok

# The installed daemon, from the DESTDIR, with the installed configuration
# (assets and socket overridden).
mkdir "$TMP/assets"
"$BUILD/gen/gen_demo" "$TMP/assets" >/dev/null || { echo "gen_demo failed"; exit 1; }
n=$(find "$TMP/assets" -type f | wc -l)
sock=$TMP/s.sock
if start_daemon "$TMP/log" "$dest/usr/bin/animd" serve -c "$dest/etc/animd/animd.ini" \
	--assets "$TMP/assets" --socket "$sock"; then
	ok
	expect_status 0 env LD_LIBRARY_PATH="$dest/usr/lib" "$TMP/probe_shared" "$sock"
	expect_match "^version $v header $v\$" "$TMP/out"
	expect_match "^server animd $v assets $n\$" "$TMP/out"
	expect_status 0 "$TMP/probe_static" "$sock"
	expect_match "^server animd $v assets $n\$" "$TMP/out"
	expect_status 0 "$dest/usr/bin/animctl" --socket "$sock" list
	expect_match 'walker\.md5anim' "$TMP/out"
	stop_daemon && ok || { bad "the installed animd did not exit cleanly"; cat "$TMP/log"; }
else
	bad "the installed animd did not start"; cat "$TMP/log"
fi

expect_status 0 make_in uninstall DESTDIR="$dest" PREFIX=/usr
(cd "$dest" && find . ! -type d) >"$TMP/left"
[ -s "$TMP/left" ] && { bad "uninstall left files:"; cat "$TMP/left"; } || ok
[ -e "$dest/etc/animd" ] && bad "uninstall left /etc/animd" || ok

# Live-style: no DESTDIR.  An existing configuration is kept, the default
# one is removed by uninstall, an edited one is kept.
live=$TMP/live
dirs="PREFIX=$live/usr SYSCONFDIR=$live/etc UNITDIR=$live/units SYSUSERSDIR=$live/sysusers.d
	TMPFILESDIR=$live/tmpfiles.d LIBDIR=$live/usr/lib64 MANDIR=$live/man"
mkdir -p "$live/etc/animd"
echo "; mine" >"$live/etc/animd/animd.ini"
# shellcheck disable=SC2086
expect_status 0 make_in install $dirs
expect_match '^kept ' "$TMP/out"
[ "$(cat "$live/etc/animd/animd.ini")" = "; mine" ] && ok || bad "install overwrote a configuration"
[ -f "$live/usr/lib64/libanimclient.so.1" ] && [ -f "$live/units/animd.service" ] &&
	[ -f "$live/sysusers.d/animd.conf" ] && ok || bad "LIBDIR, UNITDIR or SYSUSERSDIR not honoured"
expect_match "^libdir=$live/usr/lib64\$" "$live/usr/lib64/pkgconfig/animclient.pc"
expect_match "^ExecStart=$live/usr/bin/animd serve -c $live/etc/animd/animd\\.ini\$" "$live/units/animd.service"
echo "; the admin's" >"$live/etc/animd/animd.ini.d/local.ini"
# shellcheck disable=SC2086
expect_status 0 make_in uninstall $dirs
expect_match "^kept $live/etc/animd/animd\\.ini\\.d: it holds drop-ins\$" "$TMP/out"
[ "$(cd "$live" && find . ! -type d | sort | tr '\n' ' ')" = "./etc/animd/animd.ini ./etc/animd/animd.ini.d/local.ini " ] &&
	ok || bad "live uninstall left $(cd "$live" && find . ! -type d | tr '\n' ' ')"
rm "$live/etc/animd/animd.ini" "$live/etc/animd/animd.ini.d/local.ini"
# shellcheck disable=SC2086
make_in install $dirs >/dev/null && make_in uninstall $dirs >/dev/null
[ -z "$(cd "$live" && find . ! -type d)" ] && [ ! -d "$live/etc/animd" ] && ok ||
	bad "uninstall kept the default configuration or its directory"
finish
