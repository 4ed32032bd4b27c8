"""The Blender add-on (client/blender/animd_link, issue 36) in Debian's
Blender, headless, against a real `animd serve` on the demo assets.  Run by
test_blender.sh as

    blender -b --factory-startup --python-exit-code 1 --python blender_link.py

with BLENDER_USER_SCRIPTS in a temporary folder (the add-on is installed
there from a zip, as a user installs it) and ANIMD, BUILD set.  It checks:

1. install and enable from the zip; the animd package found through the
   add-on's preference (the installed copy is outside the source tree);
2. connect through the operator; the demo's assets listed;
3. import every demo skeleton (walker.md5mesh, walker.md5anim through the
   mesh it fits, crane.x, lantern.m2): one bone per joint, the rest pose the
   bind pose converted by the one axes conversion (rig.py), every bone's
   rest a proper rotation, the meshes with a vertex group per weighing bone;
4. link: play a clip of each into a stream, pose from the stream's newest
   pose, and every driven bone's armature-space matrix (pose_bone.matrix
   K^-1) equal to `sample` at the pose's clip time, converted, within 1e-5
   of the model's size; the skinned meshes as Blender evaluates them equal
   to `sample`'s vertices likewise; a cross-fade, pause and seek through
   the link;
5. follow an instance another client plays (instances.list with all): the
   pose at its time, paused and seeked by its owner;
6. record: a live recording (every pose of the stream, at its publish
   time) and a bake (sample at every frame) into actions, their keys on
   every bone's curves, and the action evaluated at its keys equal to
   `sample` at the keys' clip times;
7. the asset edited mid-link (crane.x with its frames reordered: the
   daemon stops the instance, the skeleton changed): joints mapped to the
   bones again by name, playing again, poses right; the daemon restarted
   mid-link: reconnected, playing again, poses right;
8. one frame rendered by the workbench engine, and the PNG not blank
   (copied to $ANIMD_BLENDER_PICTURE when set);
9. with the shared test data (skipped without it): real files imported and
   linked the same way, bones and meshes checked as in 4: MGL's bob (MD5),
   the DirectX SDK's tiny.x (whose skin offsets bind its mesh elsewhere
   than its frames: skin helper bones), Sauerbraten's snoutx10k (75 joints,
   4 meshes, posed at its bind pose).
"""
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import zipfile

import addon_utils
import bpy
import numpy as np

SRC = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ANIMD, BUILD = os.environ["ANIMD"], os.environ["BUILD"]
TIMEOUT = 10.0
failures = []


def check(cond, what):
    print(("ok: " if cond else "not ok: ") + what)
    if not cond:
        failures.append(what)
    return cond


class Daemon:
    """animd serve on gen_demo's assets in a folder of its own, which a
    restart keeps (tests/integration/daemon_fixture.py's way, restartable)."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="animd-blender-")
        self.assets = os.path.join(self.dir, "assets")
        os.mkdir(self.assets)
        self.sock = os.path.join(self.dir, "animd.sock")
        subprocess.run([os.path.join(BUILD, "gen", "gen_demo"), self.assets], check=True,
                       stdout=subprocess.DEVNULL)
        self.conf = os.path.join(self.dir, "animd.ini")
        with open(self.conf, "w") as f:
            f.write("[assets]\nroot = %s\n[socket]\npath = %s\n[reload]\nquiet_ms = 50\n"
                    % (self.assets, self.sock))
        self.log = open(os.path.join(self.dir, "animd.log"), "a")
        self.start()

    def start(self):
        notify_path = os.path.join(self.dir, "notify.sock")
        if os.path.exists(notify_path):
            os.unlink(notify_path)
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        notify.bind(notify_path)
        env = dict(os.environ, NOTIFY_SOCKET=notify_path)
        self.proc = subprocess.Popen([ANIMD, "serve", "-c", self.conf], stderr=self.log, env=env)
        try:
            deadline = time.time() + TIMEOUT
            while time.time() < deadline and self.proc.poll() is None:
                if select.select([notify], [], [], 0.05)[0]:
                    if b"READY=1" in notify.recv(4096).split(b"\n"):
                        return
        finally:
            notify.close()
        raise RuntimeError("the daemon did not become ready")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(TIMEOUT)

    def close(self):
        rc = self.stop()
        self.log.close()
        with open(os.path.join(self.dir, "animd.log")) as f:
            log = f.read()[-3000:]
        shutil.rmtree(self.dir)
        return rc, log


# ---- 1. install -----------------------------------------------------------

def install(tmp):
    """Zip the add-on's folder and install it as a user does."""
    z = os.path.join(tmp, "animd_link.zip")
    folder = os.path.join(SRC, "client", "blender", "animd_link")
    with zipfile.ZipFile(z, "w") as f:
        for name in sorted(os.listdir(folder)):
            if name.endswith((".py", ".toml", ".md")):
                f.write(os.path.join(folder, name), "animd_link/" + name)
    bpy.ops.preferences.addon_install(filepath=z)
    addon_utils.enable("animd_link", default_set=True, handle_error=None)
    mod = sys.modules.get("animd_link")
    check(mod is not None and not mod.__file__.startswith(SRC),
          "the add-on installs from a zip and enables (%s)" % (mod and mod.__file__))
    prefs = bpy.context.preferences.addons["animd_link"].preferences
    prefs.python_path = os.path.join(SRC, "client", "python")
    animd, err = mod.deps.load(prefs.python_path, force=True)
    check(err is None and animd.__file__.startswith(os.path.join(SRC, "client", "python")),
          "animd found through the preference (%s)" % (err or animd.__file__))
    return mod, animd


# ---- helpers ------------------------------------------------------------------

def size_of(ob):
    return float(ob["animd"]["size"])


# The conversion docs/blender.md documents, written out again here (not
# taken from the add-on): a file's point p is C p in Blender, a joint's
# matrix M is C M C^-1.
AXES = {("z_up", "right"): np.eye(3),
        ("y_up", "left"): np.array(((1, 0, 0), (0, 0, 1), (0, 1, 0)), dtype=float),
        ("y_up", "right"): np.array(((1, 0, 0), (0, 0, -1), (0, 1, 0)), dtype=float)}


def axes_of(rig_):
    return AXES[(rig_.props["up"], rig_.props["handedness"])]


def converted(mod, rig_, mats):
    """The daemon's model matrices (n, 12) in Blender's axes, (n, 4, 4)."""
    c4 = np.eye(4)
    c4[:3, :3] = axes_of(rig_)
    m = np.zeros((len(mats), 4, 4))
    m[:, :3, :] = np.asarray(mats, dtype=np.float64).reshape(-1, 3, 4)
    m[:, 3, 3] = 1
    return c4 @ m @ c4.T


def expected(client, lk, clip_time, asset=None, clip=None):
    """The daemon's joints at clip_time, converted, one per bone."""
    s = client.sample(asset=asset or lk.asset, clip=clip or lk.clip, mesh=lk.mesh,
                      time=clip_time)
    return s


def compare_bones(mod, lk, sample, what, tol_scale=1e-5):
    """Every bone's joint matrix as Blender evaluates it, against sample."""
    ob = bpy.data.objects[lk.object_name]
    bpy.context.view_layer.update()
    got = lk.rig.joints_of_pose(ob)
    want = converted(mod, lk.rig, sample.joints)
    mapped = lk.rig.bone_joint >= 0
    joints = np.array([n is not None for n in lk.rig.joint_names])     # not skin helpers
    err = float(np.abs(got[mapped] - want[lk.rig.bone_joint[mapped]]).max())
    tol = tol_scale * size_of(ob)
    check(np.array_equal(mapped, joints) and err <= tol,
          "%s: every bone's armature-space matrix is the daemon's (off by %.3g, at most %.3g)"
          % (what, err, tol))
    return err


def compare_meshes(mod, client, lk, clip_time, what):
    ob = bpy.data.objects[lk.object_name]
    dg = bpy.context.evaluated_depsgraph_get()
    s = client.sample(asset=lk.asset, clip=lk.clip, mesh=lk.mesh, time=clip_time,
                      space="vertices")
    worst = 0.0
    kids = [k for k in ob.children if k.type == "MESH"]
    for m, child in zip(s["meshes"], kids):
        ev = child.evaluated_get(dg)
        me = ev.to_mesh()
        co = np.empty(len(me.vertices) * 3)
        me.vertices.foreach_get("co", co)
        ev.to_mesh_clear()
        want = np.asarray(m["positions"], dtype=np.float64) @ axes_of(lk.rig).T
        worst = max(worst, float(np.abs(co.reshape(-1, 3) - want).max()))
    tol = 1e-5 * size_of(ob)
    check(len(kids) == len(s["meshes"]) and worst <= tol,
          "%s: the skinned meshes as Blender deforms them are the daemon's vertices (off by "
          "%.3g, at most %.3g)" % (what, worst, tol))


def pump(session, until, seconds=TIMEOUT):
    """Run the timer's step until until() or seconds pass."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        session.step(bpy)
        if until():
            return True
        time.sleep(0.01)
    return False


def fresh_pose(session, lk):
    """Wait for a pose newer than the one shown."""
    seq = lk.seq
    return pump(session, lambda: lk.seq is not None and lk.seq != seq)


# ---- 3. import ----------------------------------------------------------------

def t_import(mod, animd, session):
    c = session.client
    obs = {}
    for asset in ("walker.md5mesh", "walker.md5anim", "crane.x", "lantern.m2"):
        before = set(bpy.data.objects)
        bpy.ops.animd.import_asset(asset=asset)
        new = [o for o in bpy.data.objects if o not in before and o.type == "ARMATURE"]
        if not check(len(new) == 1, "%s: imported as one armature" % asset):
            continue
        ob = obs[asset] = new[0]
        info = c.info(asset=ob["animd"]["source"])
        joints = info["skeleton"]["joints"]
        lk = session.link(ob)
        # Bones are in Blender's order (depth first); the link maps them.
        bj = lk.rig.bone_joint
        check(len(ob.data.bones) == len(joints) and sorted(bj) == list(range(len(joints))) and
              all(ob.data.bones[lk.rig.names[b]]["animd_joint"] == joints[j]["name"]
                  for b, j in enumerate(bj)),
              "%s: a bone per joint, each naming its joint" % asset)
        joint_bone = {int(j): lk.rig.names[b] for b, j in enumerate(bj)}
        parents_ok = all((b.parent.name if b.parent else None) ==
                         joint_bone.get(joints[bj[i]]["parent"])
                         for i, b in enumerate(ob.data.bones[n] for n in lk.rig.names))
        check(parents_ok, "%s: bone parents are the joints' parents" % asset)
        # Bones rest at the skeleton's own bind pose: the bind pose's model
        # matrices times the inverse of its skin matrices.
        bind = converted(mod, lk.rig, c.sample(asset=ob["animd"]["source"], bind=True).joints)
        skin = converted(mod, lk.rig, c.sample(asset=ob["animd"]["source"], bind=True,
                                               space="skin").joints)
        frames = np.linalg.solve(skin, bind)
        check(not lk.rig.helpers, "%s: no skin helper bones (its meshes are bound at its "
              "skeleton's bind pose)" % asset)
        rest = np.array([np.array(ob.data.bones[n].matrix_local) for n in lk.rig.names])
        want = frames[bj] @ lk.rig.kmat
        err = float(np.abs(rest - want).max())
        dets = [np.linalg.det(r[:3, :3]) for r in rest]
        check(err <= 1e-5 * size_of(ob) and np.allclose(dets, 1.0, atol=1e-5),
              "%s: rest = the bind pose converted (off by %.3g), proper rotations" % (asset, err))
        up = info["axes"]["up"], info["axes"]["handedness"]
        kids = [k for k in ob.children if k.type == "MESH"]
        if info.get("meshes"):
            groups = set(g.name for k in kids for g in k.vertex_groups)
            check(len(kids) == len(info["meshes"]) and groups <= set(ob.data.bones.keys()) and
                  groups and all(k.modifiers and k.modifiers[0].object == ob for k in kids),
                  "%s: %d meshes, vertex groups named by bones, armature modifiers" %
                  (asset, len(kids)))
        print("  %s: %d bones, axes %s %s" % (asset, len(ob.data.bones), *up))
    check(obs.get("walker.md5anim") is not None and
          obs["walker.md5anim"]["animd"]["source"] == "walker.md5mesh",
          "walker.md5anim imports through the md5mesh it fits")
    return obs


# ---- 4. link ------------------------------------------------------------------

CLIPS = {"walker.md5mesh": ("walker.md5anim", "walker"), "crane.x": ("crane.x", "swing"),
         "lantern.m2": ("lantern.m2", "0")}


def t_link(mod, session, obs):
    c = session.client
    for asset, (clip_asset, clip) in CLIPS.items():
        ob = obs.get(asset)
        if ob is None:
            continue
        lk = session.link(ob)
        check("%s#%s" % (clip_asset, clip) in [k for k, *_ in lk.clips],
              "%s: the panel lists %s#%s" % (asset, clip_asset, clip))
        bpy.context.view_layer.objects.active = ob
        bpy.context.scene.animd.clip = "%s#%s" % (clip_asset, clip)
        bpy.ops.animd.play()
        check(lk.mode == "play" and lk.instance is not None, "%s: playing (%s)" % (asset, lk.note))
        for k in range(3):
            if not check(fresh_pose(session, lk), "%s: a pose came through the stream" % asset):
                break
            compare_bones(mod, lk, expected(c, lk, lk.clip_time), "%s at %.4f s (stream)"
                          % (asset, lk.clip_time))
            time.sleep(0.05)
        compare_meshes(mod, c, lk, lk.clip_time, "%s at %.4f s" % (asset, lk.clip_time))
    # Pause, seek, speed, cross-fade on the walker.
    lk = session.link(obs["walker.md5mesh"])
    bpy.context.view_layer.objects.active = obs["walker.md5mesh"]
    bpy.ops.animd.pause()
    bpy.context.scene.animd.seek = 0.25
    bpy.ops.animd.seek()
    pump(session, lambda: lk.clip_time is not None and abs(lk.clip_time - 0.25) < 1e-9)
    check(lk.paused and abs(lk.clip_time - 0.25) < 1e-9,
          "walker: paused and seeked to 0.25 s (clip time %s)" % lk.clip_time)
    compare_bones(mod, lk, expected(c, lk, 0.25), "walker paused at 0.25 s")
    bpy.ops.animd.pause()               # resumes
    bpy.context.scene.animd.fade_to = "idle.md5anim#idle"
    bpy.context.scene.animd.fade = 0.0
    bpy.ops.animd.crossfade()
    fresh_pose(session, lk)
    check(lk.asset == "idle.md5anim" and not lk.paused, "walker: cut to idle, playing")
    if fresh_pose(session, lk):
        compare_bones(mod, lk, expected(c, lk, lk.clip_time), "walker on idle at %.4f s"
                      % lk.clip_time)


# ---- 5. follow ---------------------------------------------------------------------

def t_follow(mod, animd, session, daemon, obs):
    ob = obs["lantern.m2"]
    lk = session.link(ob)
    with animd.Client(daemon.sock, name="other") as other:
        st = other.play(asset="lantern.m2", clip="2", speed=1.0)
        bpy.context.view_layer.objects.active = ob
        bpy.ops.animd.instances()
        keys = [k for k, *_ in mod.ui._ITEMS["instances"]]
        check(str(st["instance"]) in keys, "the other client's instance is listed (%s)" % keys)
        bpy.context.scene.animd.follow = str(st["instance"])
        bpy.ops.animd.follow()
        check(lk.mode == "follow" and lk.follow_id == st["instance"], "following it")
        other.pause(instance=st["instance"])
        other.seek(instance=st["instance"], time=0.7)
        lk.follow_at = 0.0              # poll now
        session.step(bpy)
        check(lk.clip_time is not None and abs(lk.clip_time - 0.7) < 1e-9,
              "the followed instance's pause and seek are seen (clip time %s)" % lk.clip_time)
        compare_bones(mod, lk, other.sample(asset="lantern.m2", clip="2", time=0.7),
                      "lantern following another client at 0.7 s")
        other.resume(instance=st["instance"])
        lk.follow_at = 0.0
        session.step(bpy)
        s = other.sample(asset="lantern.m2", clip="2", time=lk.time)
        compare_bones(mod, lk, s, "lantern following a playing instance at %.4f s" % lk.time)
    lk.follow_at = 0.0
    session.step(bpy)
    check(lk.mode is None and "gone" in lk.note, "the followed instance gone with its client "
          "(%s)" % lk.note)


# ---- 6. record ---------------------------------------------------------------

def check_action(mod, session, lk, act, what):
    ob = bpy.data.objects[lk.object_name]
    curves = {}
    for fc in act.fcurves:
        curves.setdefault(fc.data_path, []).append(fc)
    n = len(act["animd_clip_times"])
    want = {'pose.bones["%s"].%s' % (b, p) for b in lk.rig.names
            for p in ("location", "rotation_quaternion", "scale")}
    counts = {len(fc.keyframe_points) for fc in act.fcurves}
    check(set(curves) == want and counts == {n} and n >= 2,
          "%s: every bone has location, rotation and scale curves of %d keys each" % (what, n))
    fc = act.fcurves[0]
    frames = [kp.co[0] for kp in fc.keyframe_points]
    check(all(b > a for a, b in zip(frames, frames[1:])), "%s: keys in time order" % what)
    src = act["animd"]
    scene = bpy.context.scene
    for k in sorted({0, n // 2, n - 1}):
        f = frames[k]
        scene.frame_set(int(np.floor(f)), subframe=float(f - np.floor(f)))
        s = session.client.sample(asset=src["asset"], clip=src["clip"], mesh=src["mesh"] or None,
                                  time=act["animd_clip_times"][k], loop="once")
        compare_bones(mod, lk, s, "%s: key %d (frame %.3f, clip time %.4f)" % (
            what, k, f, act["animd_clip_times"][k]), tol_scale=1e-4)


def t_record(mod, session, obs):
    ob = obs["crane.x"]
    lk = session.link(ob)
    bpy.context.view_layer.objects.active = ob
    bpy.context.scene.animd.clip = "crane.x#swing"
    bpy.ops.animd.play()
    fresh_pose(session, lk)
    bpy.ops.animd.record()
    check(lk.take is not None, "recording")
    pump(session, lambda: len(lk.take) >= 12)
    bpy.ops.animd.record()
    act = ob.animation_data.action if ob.animation_data else None
    check(act is not None and lk.take is None and lk.mode is None,
          "recording stopped: the action on the armature, the link stopped")
    if act is not None:
        check(act["animd"]["how"] == "stream", "the action says it came from the stream")
        check_action(mod, session, lk, act, "live recording")
    bpy.ops.animd.bake()
    act = ob.animation_data.action
    fps = bpy.context.scene.render.fps / bpy.context.scene.render.fps_base
    check(len(act["animd_clip_times"]) == int(np.ceil(2.0 * fps)) + 1,
          "the bake has a key per frame of the 2 s swing and its end (%d)"
          % len(act["animd_clip_times"]))
    check_action(mod, session, lk, act, "bake")


# ---- 7. edits and restarts ---------------------------------------------------------

def t_reload(mod, session, daemon, obs):
    ob = obs["crane.x"]
    lk = session.link(ob)
    bpy.context.view_layer.objects.active = ob
    bpy.context.scene.animd.clip = "crane.x#swing"
    bpy.ops.animd.play()
    check(fresh_pose(session, lk), "crane playing again (the action taken off)")
    old = list(lk.rig.bone_joint)
    path = os.path.join(daemon.assets, "crane.x")
    with open(path) as f:
        text = f.read()
    # Move the root frame Body (and its mesh) before Base: same names and
    # parents, another order.
    start = text.index("Frame Body {")
    end = text.index("AnimationSet")
    body = text[start:end]
    base = text.index("Frame Base {")
    edited = text[:base] + body + text[base:start] + text[end:]
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(edited)
    os.rename(tmp, path)
    ok = pump(session, lambda: list(lk.rig.bone_joint) != old and lk.instance is not None and
              lk.generation is not None and lk.generation > 1)
    check(ok, "crane.x reordered: joints mapped to the bones again (%s -> %s; %s)"
          % (old, list(lk.rig.bone_joint), lk.note))
    if fresh_pose(session, lk):
        compare_bones(mod, lk, expected(session.client, lk, lk.clip_time),
                      "crane after the reorder at %.4f s" % lk.clip_time)

    # A restart: the link reconnects and plays again.
    walker = session.link(obs["walker.md5mesh"])
    before = session.reconnects
    daemon.stop()
    pump(session, lambda: not session.connected, 5)
    check(not session.connected and "disconnected" in session.status,
          "the daemon stopped: the link says so (%s)" % session.status)
    daemon.start()
    ok = pump(session, lambda: session.connected and session.reconnects > before and
              walker.instance is not None)
    check(ok, "the daemon restarted: reconnected and playing again (%s)" % session.status)
    for lk in (walker, session.link(ob)):
        if check(fresh_pose(session, lk), "%s: poses after the restart" % lk.object_name):
            compare_bones(mod, lk, expected(session.client, lk, lk.clip_time),
                          "%s after the restart at %.4f s" % (lk.object_name, lk.clip_time))


# ---- 8. render ------------------------------------------------------------------------

def t_render(tmp, session, obs):
    scene = bpy.context.scene
    # The walker mid-stride, held there by the daemon (paused).
    lk = session.link(obs["walker.md5mesh"])
    lk.play("walker.md5anim", "walker", start=0.3, paused=True)
    pump(session, lambda: lk.clip_time is not None and abs(lk.clip_time - 0.3) < 1e-9)
    for o in list(scene.objects):
        if o.type in ("MESH", "CAMERA", "LIGHT") and o.parent is None:
            bpy.data.objects.remove(o)
    walker = obs["walker.md5mesh"]
    for name, ob in obs.items():
        hide = ob is not walker
        ob.hide_render = hide
        for k in ob.children:
            k.hide_render = hide
    cam_data = bpy.data.cameras.new("cam")
    cam = bpy.data.objects.new("cam", cam_data)
    scene.collection.objects.link(cam)
    scene.camera = cam
    bpy.context.view_layer.update()
    dg = bpy.context.evaluated_depsgraph_get()
    pts = []
    for k in walker.children:
        me = k.evaluated_get(dg).to_mesh()
        pts.extend(np.array(k.matrix_world @ v.co) for v in me.vertices)
        k.evaluated_get(dg).to_mesh_clear()
    pts = np.array(pts)
    mid, size = (pts.max(axis=0) + pts.min(axis=0)) / 2, float(np.ptp(pts, axis=0).max())
    from mathutils import Vector
    cam.location = Vector(mid) + Vector((1.0, -1.6, 0.45)).normalized() * size * 2.2
    cam.rotation_euler = (Vector(mid) - cam.location).to_track_quat("-Z", "Y").to_euler()
    cam_data.lens = 50
    scene.render.engine = "BLENDER_WORKBENCH"
    scene.display.shading.color_type = "RANDOM"
    scene.display.shading.show_cavity = True
    scene.display.shading.show_object_outline = True
    scene.render.resolution_x, scene.render.resolution_y = 480, 360
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = "PNG"
    scene.render.filepath = os.path.join(tmp, "frame.png")
    bpy.ops.render.render(write_still=True)
    img = bpy.data.images.load(scene.render.filepath)
    px = np.array(img.pixels[:]).reshape(-1, 4)[:, :3]
    background = np.median(px, axis=0)
    share = float((np.abs(px - background).max(axis=1) > 0.05).mean())
    check(share > 0.02, "the rendered frame is not blank (%.1f%% of its pixels are the figure)"
          % (100 * share))
    out = os.environ.get("ANIMD_BLENDER_PICTURE")
    if out:
        shutil.copy(scene.render.filepath, out)


def t_testdata(mod, session, daemon):
    data = os.environ.get("ANIMD_TESTDATA") or os.path.join(SRC, "..", "shared", "testdata")
    files = [("md5/mgl/bob.md5mesh", "bob.md5anim#bob"), ("md5/mgl/bob.md5anim", None),
             ("x/dxsdk/tiny.x", "tiny.x#tiny"), ("md5/sauer-snoutx10k/snoutx10k.md5mesh", None)]
    if not os.path.isdir(data):
        print("skip part: shared test data not found at %s (set ANIMD_TESTDATA)" % data)
        return
    # Into the daemon's asset folder, for this run only.
    for rel, _ in files:
        shutil.copy(os.path.join(data, rel), daemon.assets)
    names = [os.path.basename(rel) for rel, _ in files]
    pump(session, lambda: all(n in [a["asset"] for a in session.client.assets()] for n in names))
    mod.ui.ops_refresh()
    for rel, key in files:
        name = os.path.basename(rel)
        if name.endswith(".md5anim"):
            continue
        ob = mod.ui.ops_import(name)
        lk = session.link(ob)
        check(len(lk.rig.joint_names) - len(lk.rig.helpers) == len(
            session.client.info(asset=name)["skeleton"]["joints"]),
            "%s: a bone per joint (and %d skin helpers)" % (name, len(lk.rig.helpers)))
        if key is None:
            # No clip: the armature at its bind pose, its meshes as bound.
            lk.rig.apply(ob, lk.rig.bases(session.client.sample(asset=name, bind=True).joints))
            bpy.context.view_layer.update()
            kids = [k for k in ob.children if k.type == "MESH"]
            check(len(kids) == len(session.client.info(asset=name)["meshes"]),
                  "%s: its %d meshes imported" % (name, len(kids)))
            continue
        asset, clip = key.split("#")
        lk.play(asset, clip)
        if check(fresh_pose(session, lk) and fresh_pose(session, lk),
                 "%s: poses through the stream" % name):
            compare_bones(mod, lk, expected(session.client, lk, lk.clip_time),
                          "%s at %.4f s" % (name, lk.clip_time))
            compare_meshes(mod, session.client, lk, lk.clip_time, "%s at %.4f s"
                           % (name, lk.clip_time))
        lk.stop()
    tiny = session.links.get("tiny.x")
    check(tiny is not None and len(tiny.rig.helpers) > 0,
          "tiny.x: its mesh is skinned through skin helper bones")


def main():
    tmp = tempfile.mkdtemp(prefix="animd-blender-test-")
    daemon = Daemon()
    try:
        mod, animd = install(tmp)
        if animd is None:
            return 1
        bpy.context.scene.animd.socket = daemon.sock
        bpy.ops.animd.connect()
        session = mod.link.SESSION
        check(session is not None and session.connected, "connected (%s)" % (
            session and session.status))
        names = {a.name for a in bpy.context.scene.animd.assets}
        check(names >= {"walker.md5mesh", "walker.md5anim", "crane.x", "lantern.m2"},
              "the demo's assets are listed (%s)" % sorted(names))
        check(bpy.app.timers.is_registered(mod.link.tick), "the link's timer is registered")
        obs = t_import(mod, animd, session)
        t_link(mod, session, obs)
        t_follow(mod, animd, session, daemon, obs)
        t_record(mod, session, obs)
        t_reload(mod, session, daemon, obs)
        t_render(tmp, session, obs)
        t_testdata(mod, session, daemon)
        bpy.ops.animd.disconnect()
    finally:
        rc, log = daemon.close()
        check(rc == 0, "the daemon exits 0 on SIGTERM (got %s)" % rc)
        if failures:
            print("daemon log:\n" + log)
        shutil.rmtree(tmp, ignore_errors=True)
    print("blender_link.py: %d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    try:
        rc = main()
    except Exception:
        import traceback
        traceback.print_exc()
        rc = 1
    sys.exit(rc)
