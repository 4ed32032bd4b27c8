"""The add-on's face: preferences, the scene's settings, the operators and
the panel (View3D > Sidebar > animd).

Operators do their work through ``ops_*`` functions of this module, which
take plain arguments and raise on failure, so that a script (the tests
among them) does exactly what the buttons do.
"""
import os

import bpy
from bpy.props import (BoolProperty, CollectionProperty, EnumProperty, FloatProperty,
                       IntProperty, PointerProperty, StringProperty)

from . import build, deps, link, source

PACKAGE = __package__


def prefs(context=None):
    context = context or bpy.context
    addon = context.preferences.addons.get(PACKAGE)
    return addon.preferences if addon is not None else None


def default_socket():
    return os.environ.get("ANIMD_SOCKET") or "/run/animd/animd.sock"


class AnimdPreferences(bpy.types.AddonPreferences):
    bl_idname = PACKAGE

    python_path: StringProperty(
        name="animd package folder", subtype="DIR_PATH", default="",
        description="The folder holding animd/ (client/python of the source tree, or where "
                    "pip put it), when Blender's Python does not find it by itself")
    rate: IntProperty(name="Rate (Hz)", default=60, min=1, max=240,
                      description="Poses per second: the stream's rate and the timer's")
    retry: FloatProperty(name="Reconnect every (s)", default=1.0, min=0.0, max=60.0)

    def draw(self, context):
        col = self.layout.column()
        col.prop(self, "python_path")
        col.prop(self, "rate")
        col.prop(self, "retry")
        mod, err = deps.load(self.python_path)
        if err:
            for line in _wrap(err, 90):
                col.label(text=line, icon="ERROR")
        else:
            col.label(text="animd %s from %s" % (mod.__version__, os.path.dirname(
                os.path.dirname(mod.__file__))), icon="CHECKMARK")


class AnimdAsset(bpy.types.PropertyGroup):
    format: StringProperty()


# EnumProperty item callbacks must keep their strings alive.
_ITEMS = {"clips": [], "instances": []}


def _clip_items(self, context):
    lk = active_link(context)
    items = [(k, k, "%s, %.3g s" % (k, d)) for k, _a, _c, _m, d in (lk.clips if lk else [])]
    _ITEMS["clips"] = items or [("", "(no clips)", "")]
    return _ITEMS["clips"]


def _instance_items(self, context):
    return _ITEMS["instances"] or [("", "(none: refresh)", "")]


def _on_speed(self, context):
    lk = active_link(context)
    if lk is not None and lk.mode == "play" and lk.instance is not None and lk.session.connected:
        try:
            lk.set_speed(self.speed)
        except Exception as e:          # noqa: BLE001  (shown, not raised from a slider)
            lk.note = str(e)


class AnimdSceneProps(bpy.types.PropertyGroup):
    socket: StringProperty(name="Socket", default=default_socket(), subtype="FILE_PATH",
                           description="The daemon's control socket")
    assets: CollectionProperty(type=AnimdAsset)
    asset_index: IntProperty()
    clip: EnumProperty(name="Clip", items=_clip_items)
    fade_to: EnumProperty(name="Fade to", items=_clip_items)
    fade: FloatProperty(name="Fade (s)", default=0.3, min=0.0, max=3600.0)
    sync: BoolProperty(name="Sync", description="Start the new clip at the old one's phase")
    speed: FloatProperty(name="Speed", default=1.0, min=-1e6, max=1e6, soft_min=-4,
                         soft_max=4, update=_on_speed)
    seek: FloatProperty(name="Time (s)", default=0.0, min=-3.2e9, max=3.2e9)
    follow: EnumProperty(name="Instance", items=_instance_items)


def _wrap(text, width):
    out, line = [], ""
    for word in str(text).split():
        if line and len(line) + 1 + len(word) > width:
            out.append(line)
            line = word
        else:
            line = (line + " " + word).strip()
    if line:
        out.append(line)
    return out


# ---- what the operators do ------------------------------------------------

def ops_session(context=None):
    """The session, with animd imported (RuntimeError saying what is
    missing otherwise)."""
    context = context or bpy.context
    p = prefs(context)
    mod, err = deps.load(p.python_path if p else "")
    if err:
        raise RuntimeError(err)
    s = link.session(mod, context.scene.animd.socket)
    s.animd = mod
    if p is not None:
        s.rate, s.retry = p.rate, p.retry
    return s


def ops_connect(context=None):
    context = context or bpy.context
    s = ops_session(context)
    if not s.connected:
        s.connect()
    if not bpy.app.timers.is_registered(link.tick):
        bpy.app.timers.register(link.tick, first_interval=0.0, persistent=True)
    ops_refresh(context)
    return s


def ops_refresh(context=None):
    context = context or bpy.context
    s = link.SESSION
    s.catalog.forget()
    items = context.scene.animd.assets
    items.clear()
    for a in s.catalog.assets():
        it = items.add()
        it.name, it.format = a["asset"], a.get("format") or ""
    return [a.name for a in items]


def ops_import(asset, context=None):
    """Import asset as an armature (with its meshes); the armature object."""
    context = context or bpy.context
    s = link.SESSION
    skel = source.skeleton(s.catalog, asset)
    ob = build.armature(context, skel)
    s.link(ob)
    return ob


def active_link(context=None):
    context = context or bpy.context
    ob = context.active_object
    s = link.SESSION
    if ob is None or s is None or ob.type != "ARMATURE" or "animd" not in ob:
        return None
    if ob.name not in s.links and not s.connected:
        return None
    try:
        return s.link(ob)
    except Exception:                   # noqa: BLE001  (not one the link can drive)
        return None


def ops_link(ob):
    """The link of an imported armature (made on first use)."""
    return link.SESSION.link(ob)


def ops_refresh_instances(context=None):
    s = link.SESSION
    own = s.client.server.get("connection") if s.client and s.client.server else None
    states = [st for st in s.client.instances(all=True) if st.get("connection") != own]
    _ITEMS["instances"] = [(str(st["instance"]), "%d: %s#%s (%s)" % (
        st["instance"], st.get("asset"), st.get("clip"), st.get("client") or "?"),
        "connection %s" % st.get("connection")) for st in states]
    return states


def _clip_of(lk, key):
    for k, asset, clip, _mesh, _d in lk.clips:
        if k == key:
            return asset, clip
    raise ValueError("no clip %r for this armature" % key)


# ---- operators --------------------------------------------------------------

class _Op(bpy.types.Operator):
    bl_options = {"REGISTER"}

    def execute(self, context):
        try:
            msg = self.run(context)
        except Exception as e:          # noqa: BLE001  (reported to the user)
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        if msg:
            self.report({"INFO"}, msg)
        return {"FINISHED"}


class _LinkOp(_Op):
    @classmethod
    def poll(cls, context):
        return active_link(context) is not None


class ANIMD_OT_connect(_Op):
    bl_idname = "animd.connect"
    bl_label = "Connect"
    bl_description = "Connect to the daemon, list its assets and keep the link alive"

    def run(self, context):
        s = ops_connect(context)
        return s.status


class ANIMD_OT_disconnect(_Op):
    bl_idname = "animd.disconnect"
    bl_label = "Disconnect"

    def run(self, context):
        if link.SESSION is not None:
            link.SESSION.disconnect()


class ANIMD_OT_refresh(_Op):
    bl_idname = "animd.refresh"
    bl_label = "Refresh"
    bl_description = "List the daemon's assets again"

    @classmethod
    def poll(cls, context):
        return link.SESSION is not None and link.SESSION.connected

    def run(self, context):
        ops_refresh(context)


class ANIMD_OT_import(_Op):
    bl_idname = "animd.import_asset"
    bl_label = "Import"
    bl_description = ("Import the selected asset's skeleton as an armature at its bind pose, "
                      "with its skinned meshes")
    bl_options = {"REGISTER", "UNDO"}

    asset: StringProperty(name="Asset", description="Default: the one selected in the list")

    @classmethod
    def poll(cls, context):
        return link.SESSION is not None and link.SESSION.connected

    def run(self, context):
        p = context.scene.animd
        name = self.asset or (p.assets[p.asset_index].name if 0 <= p.asset_index < len(
            p.assets) else "")
        if not name:
            raise ValueError("select an asset first")
        ob = ops_import(name, context)
        return "imported %s as %s" % (name, ob.name)


class ANIMD_OT_play(_LinkOp):
    bl_idname = "animd.play"
    bl_label = "Play"
    bl_description = "Play the clip on the daemon and drive the armature with it"

    def run(self, context):
        lk = active_link(context)
        p = context.scene.animd
        asset, clip = _clip_of(lk, p.clip)
        lk.play(asset, clip, speed=p.speed)


class ANIMD_OT_pause(_LinkOp):
    bl_idname = "animd.pause"
    bl_label = "Pause"

    def run(self, context):
        lk = active_link(context)
        lk.resume() if lk.paused else lk.pause()


class ANIMD_OT_seek(_LinkOp):
    bl_idname = "animd.seek"
    bl_label = "Seek"

    def run(self, context):
        active_link(context).seek(context.scene.animd.seek)


class ANIMD_OT_crossfade(_LinkOp):
    bl_idname = "animd.crossfade"
    bl_label = "Cross-fade"
    bl_description = "Fade the playing instance to another clip"

    def run(self, context):
        lk = active_link(context)
        p = context.scene.animd
        asset, clip = _clip_of(lk, p.fade_to)
        lk.crossfade(asset, clip, p.fade, p.sync)


class ANIMD_OT_stop(_LinkOp):
    bl_idname = "animd.stop"
    bl_label = "Stop"

    def run(self, context):
        active_link(context).stop()


class ANIMD_OT_instances(_Op):
    bl_idname = "animd.instances"
    bl_label = "Refresh instances"
    bl_description = "List every other connection's instances (instances.list with all)"

    @classmethod
    def poll(cls, context):
        return link.SESSION is not None and link.SESSION.connected

    def run(self, context):
        return "%d instances" % len(ops_refresh_instances(context))


class ANIMD_OT_follow(_LinkOp):
    bl_idname = "animd.follow"
    bl_label = "Follow"
    bl_description = "Show what another connection's instance plays"

    def run(self, context):
        key = context.scene.animd.follow
        if not key:
            raise ValueError("choose an instance (Refresh instances)")
        active_link(context).follow(int(key))


class ANIMD_OT_record(_LinkOp):
    bl_idname = "animd.record"
    bl_label = "Record"
    bl_description = ("Start recording every pose the link shows into an action; again to "
                      "stop and write the action")

    def run(self, context):
        lk = active_link(context)
        if lk.take is None:
            lk.record_start(bpy)
            return "recording"
        act = lk.record_stop(bpy)
        return "recorded %s" % (act.name if act else "nothing")


class ANIMD_OT_bake(_LinkOp):
    bl_idname = "animd.bake"
    bl_label = "Bake clip"
    bl_description = "Sample the clip at every frame into an action"

    def run(self, context):
        lk = active_link(context)
        asset, clip = _clip_of(lk, context.scene.animd.clip)
        act = lk.bake(bpy, asset, clip)
        return "baked %s" % act.name


class ANIMD_UL_assets(bpy.types.UIList):
    def draw_item(self, context, layout, data, item, icon, active_data, active_propname,
                  index=0):
        icon = "ARMATURE_DATA" if item.format in ("md5mesh", "x", "m2", "gltf") else \
            "ACTION" if item.format == "md5anim" else "CAMERA_DATA" \
            if item.format == "md5camera" else "FILE"
        layout.label(text=item.name, icon=icon)


class VIEW3D_PT_animd(bpy.types.Panel):
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "animd"
    bl_label = "animd"

    def draw(self, context):
        layout = self.layout
        p = context.scene.animd
        s = link.SESSION
        _, err = deps.load(prefs(context).python_path if prefs(context) else "")
        if err:
            box = layout.box()
            for line in _wrap(err, 32):
                box.label(text=line, icon="ERROR")
            return
        col = layout.column()
        col.prop(p, "socket")
        row = col.row(align=True)
        connected = s is not None and s.connected
        row.operator("animd.connect", icon="LINKED")
        row.operator("animd.disconnect", icon="UNLINKED")
        for line in _wrap(s.status if s else "not connected", 32):
            col.label(text=line, icon="CHECKMARK" if connected else "INFO")
        if not connected:
            return
        col.separator()
        row = col.row()
        row.template_list("ANIMD_UL_assets", "", p, "assets", p, "asset_index", rows=4)
        row = col.row(align=True)
        row.operator("animd.refresh", icon="FILE_REFRESH")
        row.operator("animd.import_asset", icon="IMPORT")
        lk = active_link(context)
        if lk is None:
            col.label(text="Select an imported armature to link it")
            return
        box = layout.box()
        box.label(text="%s: %s" % (lk.object_name, lk.source), icon="ARMATURE_DATA")
        box.prop(p, "clip")
        row = box.row(align=True)
        row.operator("animd.play", icon="PLAY")
        row.operator("animd.pause", text="Resume" if lk.paused else "Pause",
                     icon="PLAY" if lk.paused else "PAUSE")
        row.operator("animd.stop", icon="SNAP_FACE")
        row = box.row(align=True)
        row.prop(p, "seek")
        row.operator("animd.seek", text="", icon="TIME")
        box.prop(p, "speed")
        row = box.row(align=True)
        row.prop(p, "fade_to", text="")
        row.prop(p, "fade")
        row.prop(p, "sync", toggle=True)
        box.operator("animd.crossfade", icon="IPO_EASE_IN_OUT")
        row = box.row(align=True)
        row.prop(p, "follow", text="")
        row.operator("animd.instances", text="", icon="FILE_REFRESH")
        row.operator("animd.follow", icon="HIDE_OFF")
        row = box.row(align=True)
        row.operator("animd.record", text="Stop recording" if lk.take is not None else
                     "Record", icon="REC", depress=lk.take is not None)
        row.operator("animd.bake", icon="KEYINGSET")
        state = "%s %s#%s" % (lk.mode or "idle", lk.asset or "", lk.clip or "") \
            if lk.mode != "follow" else "following instance %s" % lk.follow_id
        box.label(text=state)
        if lk.clip_time is not None:
            box.label(text="clip time %.3f s%s" % (lk.clip_time, ", paused" if lk.paused
                                                  else ""))
        if lk.take is not None:
            box.label(text="%d poses recorded" % len(lk.take), icon="REC")
        for line in _wrap(lk.note, 32):
            box.label(text=line, icon="ERROR")


CLASSES = (AnimdPreferences, AnimdAsset, AnimdSceneProps, ANIMD_OT_connect,
           ANIMD_OT_disconnect, ANIMD_OT_refresh, ANIMD_OT_import, ANIMD_OT_play,
           ANIMD_OT_pause, ANIMD_OT_seek, ANIMD_OT_crossfade, ANIMD_OT_stop,
           ANIMD_OT_instances, ANIMD_OT_follow, ANIMD_OT_record, ANIMD_OT_bake,
           ANIMD_UL_assets, VIEW3D_PT_animd)


def register():
    for cls in CLASSES:
        bpy.utils.register_class(cls)
    bpy.types.Scene.animd = PointerProperty(type=AnimdSceneProps)


def unregister():
    if bpy.app.timers.is_registered(link.tick):
        bpy.app.timers.unregister(link.tick)
    if link.SESSION is not None:
        link.SESSION.disconnect()
        link.SESSION = None
    del bpy.types.Scene.animd
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
