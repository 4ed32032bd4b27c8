#!/bin/sh
# The picture of the add-on's panel in docs/blender.md, taken from Blender's
# real window: Blender runs with its interface on a virtual X display
# (Xvfb, software OpenGL), xdotool closes the first-run splash and clicks
# the sidebar's animd tab (Blender 3.4 has no Python call for it), and
# Blender saves a screenshot, cropped here to the view and the panel.
# Needs xvfb, xdotool and python3-matplotlib (not among `make deps`: only
# for this picture), a built tree (make all demo).
# Usage: client/blender/tools/panel_screenshot.sh [OUT.png]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../../../docs/blender-panel.png}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SHOT=$tmp/window.png
cat >"$tmp/run.sh" <<EOS
blender --factory-startup --python "$here/panel_screenshot.py" >"$tmp/blender.log" 2>&1 &
b=\$!
for i in \$(seq 100); do [ -s "$SHOT.ui" ] && break; sleep 0.2; done
sleep 1
read x y w h height <"$SHOT.ui"
xdotool key Escape
sleep 0.5
# The animd tab is the fourth down the sidebar's edge (Item, Tool, View, animd).
xdotool mousemove \$((x + w - 10)) \$((height - y - h + 175)) click 1
sleep 0.5
touch "$SHOT.clicked"
wait \$b
EOS
xvfb-run -a -s "-screen 0 1600x900x24" sh "$tmp/run.sh"
/usr/bin/python3 -c "
import sys, matplotlib.image as im
im.imsave(sys.argv[2], im.imread(sys.argv[1])[70:770, 420:1300])" "$SHOT" "$out"
echo "wrote $out"
