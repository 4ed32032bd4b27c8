#!/bin/sh
# The Debian packages: built from debian/ (make debs: dpkg-buildpackage
# -b), then installed with dpkg into a scratch root with their maintainer
# scripts run against it (--force-script-chrootless, so DPKG_ROOT: the
# animd user and group, /srv/animd, the units enabled; policy-rc.d keeps
# the host's systemd from being asked to start anything).  The packaged
# animd then serves on a private socket, the packaged animctl and a program
# built through the -dev package's pkg-config file and the packaged Python
# module talk to it; purge leaves
# none of the packages' files.
. "$(dirname "$0")/lib.sh"
for tool in dpkg-buildpackage dh dpkg pkg-config cc; do
	command -v $tool >/dev/null || { echo "SKIP: $tool is not installed"; exit 77; }
done
v=$(cat "$SRC/VERSION")
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
deb=$TMP/deb

env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make -s -C "$SRC" debs DEB_DIR="$deb" >"$TMP/build.log" 2>&1 ||
	{ echo "not ok: make debs"; cat "$TMP/build.log"; exit 1; }
for p in animd libanimclient1 libanimclient-dev; do
	[ -f "$deb/${p}_${v}_$(dpkg --print-architecture).deb" ] && ok || bad "no $p package"
done
[ -f "$deb/python3-animd_${v}_all.deb" ] && ok || bad "no python3-animd package"
dpkg-deb -c "$deb/python3-animd_${v}_all.deb" >"$TMP/py.list"
for m in __init__ __main__ client wire errors stream poses draw; do
	expect_match "\\./usr/lib/python3/dist-packages/animd/$m\\.py\$" "$TMP/py.list"
done
dpkg-deb -c "$deb/animd_${v}_"*.deb >"$TMP/animd.list"
expect_match '\./usr/bin/animd$' "$TMP/animd.list"
expect_match '\./usr/bin/animctl$' "$TMP/animd.list"
expect_match '/systemd/system/animd\.socket$' "$TMP/animd.list"
expect_match '\./usr/lib/sysusers\.d/animd\.conf$' "$TMP/animd.list"
dpkg-deb -I "$deb/animd_${v}_"*.deb conffiles >"$TMP/conffiles"
expect_match '^/etc/animd/animd\.ini$' "$TMP/conffiles"
expect_match '\./etc/animd/animd\.ini\.d/$' "$TMP/animd.list"
dpkg-deb -c "$deb/libanimclient1_${v}_"*.deb >"$TMP/lib.list"
expect_match "\\./usr/lib/$arch/libanimclient\\.so\\.1\$" "$TMP/lib.list"

root=$TMP/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates" "$root/usr/sbin"
touch "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/available"
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod +x "$root/usr/sbin/policy-rc.d"
# dpkg_root ARGS... : dpkg on the scratch root; the libraries the packages
# depend on are the host's, not installed there.
dpkg_root() {
	dpkg --root="$root" --force-script-chrootless --force-depends --log=/dev/null "$@"
}
expect_status 0 dpkg_root -i "$deb/animd_${v}_"*.deb "$deb/libanimclient1_${v}_"*.deb \
	"$deb/libanimclient-dev_${v}_"*.deb "$deb/python3-animd_${v}_all.deb"
expect_match '^animd:x:[0-9]+:[0-9]+:' "$root/etc/passwd"
expect_match '^animd:x:[0-9]+:' "$root/etc/group"
[ -d "$root/srv/animd" ] && ok || bad "the postinst did not make /srv/animd"
[ -d "$root/etc/animd/animd.ini.d" ] && ok || bad "the package has no drop-in folder /etc/animd/animd.ini.d"
[ -L "$root/etc/systemd/system/sockets.target.wants/animd.socket" ] && ok || bad "animd.socket not enabled"
[ -L "$root/etc/systemd/system/multi-user.target.wants/animd.service" ] && ok ||
	bad "animd.service not enabled"
expect_match "ExecStart=/usr/bin/animd serve -c /etc/animd/animd.ini" "$root/lib/systemd/system/animd.service"

# The packaged programs, from the scratch root.
mkdir "$TMP/assets"
"$BUILD/gen/gen_demo" "$TMP/assets" >/dev/null || { echo "gen_demo failed"; exit 1; }
n=$(find "$TMP/assets" -type f | wc -l)
sock=$TMP/s.sock
export PKG_CONFIG_PATH="$root/usr/lib/$arch/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$root"
# shellcheck disable=SC2046
expect_status 0 cc -Wall -Werror $(pkg-config --cflags animclient) -o "$TMP/probe" \
	"$SRC/tests/integration/install_probe.c" $(pkg-config --libs animclient)
unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR
if start_daemon "$TMP/log" "$root/usr/bin/animd" serve -c "$root/etc/animd/animd.ini" \
	--assets "$TMP/assets" --socket "$sock"; then
	ok
	expect_match "animd $v starting" "$TMP/log"
	expect_status 0 "$root/usr/bin/animctl" --socket "$sock" list
	expect_match 'walker\.md5anim' "$TMP/out"
	expect_status 0 env LD_LIBRARY_PATH="$root/usr/lib/$arch" "$TMP/probe" "$sock"
	expect_match "^server animd $v assets $n\$" "$TMP/out"
	# The packaged Python module (Debian's python3 and its msgpack and
	# numpy, the module from the scratch root; its byte code written there
	# too, which the purge must take away with it).
	if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import msgpack, numpy' 2>/dev/null; then
		pyroot=$root/usr/lib/python3/dist-packages
		expect_status 0 env PYTHONPATH="$pyroot" /usr/bin/python3 -c \
			"import animd, sys; print(animd.__file__, animd.__version__); \
			 c = animd.Client(sys.argv[1]); print(len(c.assets())); c.close()" "$sock"
		expect_match "^$pyroot/animd/__init__\\.py $v\$" "$TMP/out"
		expect_match "^$n\$" "$TMP/out"
		expect_status 0 env PYTHONPATH="$pyroot" /usr/bin/python3 -m animd --socket "$sock" --json status
		expect_jq ".assets.count == $n" "$TMP/out"
		# PEP 561: the package's annotations, installed with it.
		[ -f "$pyroot/animd/py.typed" ] && ok || bad "python3-animd lacks animd/py.typed"
	else
		echo "skip part: python3-msgpack or python3-numpy is not installed"
	fi
	stop_daemon && ok || { bad "the packaged animd did not exit cleanly"; cat "$TMP/log"; }
else
	bad "the packaged animd did not start"; cat "$TMP/log"
fi

expect_status 0 dpkg_root --purge python3-animd libanimclient-dev libanimclient1 animd
(cd "$root" && find . ! -type d ! -path './var/lib/dpkg/*' ! -path './etc/passwd*' \
	! -path './etc/group*' ! -path './etc/shadow*' ! -path './etc/gshadow*' \
	! -path './etc/.pwd.lock' ! -path ./usr/sbin/policy-rc.d) >"$TMP/left"
[ -s "$TMP/left" ] && { bad "purge left files:"; cat "$TMP/left"; } || ok
finish
