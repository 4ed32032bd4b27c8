"""Blender's side of panel_screenshot.sh: a daemon on the demo assets (the
integration test's), the walker imported and playing, the sidebar open;
once the shell has clicked the animd tab (it touches $SHOT.clicked), a
screenshot of the whole window to $SHOT, and Blender quits."""
import os
import sys

import addon_utils
import bpy

SRC = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SHOT = os.environ["SHOT"]
sys.path.insert(0, os.path.join(SRC, "client", "blender"))
sys.path.insert(0, os.path.join(SRC, "tests", "integration"))
os.environ.setdefault("ANIMD", os.path.join(SRC, "build", "animd"))
os.environ.setdefault("BUILD", os.path.join(SRC, "build"))
from blender_link import Daemon  # noqa: E402

addon_utils.enable("animd_link", default_set=True)
link = sys.modules["animd_link"].link
ui = sys.modules["animd_link"].ui
daemon = Daemon()
for o in list(bpy.data.objects):
    if o.type == "MESH":
        bpy.data.objects.remove(o)
bpy.context.scene.animd.socket = daemon.sock
bpy.ops.animd.connect()
ob = ui.ops_import("walker.md5mesh")
lk = link.SESSION.link(ob)
bpy.context.scene.animd.clip = "walker.md5anim#walker"
bpy.context.scene.animd.fade_to = "idle.md5anim#idle"
lk.play("walker.md5anim", "walker")
ticks = {"n": 0}


def show():
    """Sidebar open, the walker framed; where the sidebar is, for the click."""
    win = bpy.context.window_manager.windows[0]
    for area in win.screen.areas:
        if area.type == "VIEW_3D":
            area.spaces.active.show_region_ui = True
            view = [r for r in area.regions if r.type == "WINDOW"][0]
            side = [r for r in area.regions if r.type == "UI"][0]
            with bpy.context.temp_override(window=win, area=area, region=view):
                bpy.ops.view3d.view_selected()
            with open(SHOT + ".ui", "w") as f:
                f.write("%d %d %d %d %d\n" % (side.x, side.y, side.width, side.height,
                                              win.height))


def step():
    ticks["n"] += 1
    if ticks["n"] == 1:
        show()
        return 0.5
    if not os.path.exists(SHOT + ".clicked") and ticks["n"] < 60:
        return 0.2
    if "shot" not in ticks:
        ticks["shot"] = True            # a second for the tab to draw
        return 1.0
    with bpy.context.temp_override(window=bpy.context.window_manager.windows[0]):
        bpy.ops.screen.screenshot(filepath=SHOT)
    daemon.close()
    bpy.ops.wm.quit_blender()
    return None


bpy.app.timers.register(step, first_interval=2.0)
