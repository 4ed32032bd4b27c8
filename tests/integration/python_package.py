"""The Python package animd (client/python, issue 15) against the real daemon
on a private socket and asset directory:

1. every method of PROTOCOL.md section 9 through its typed method, results
   checked against what the protocol says they hold; sample's arrays in every
   space against the reply's own numbers; a stream's pose against sample's;
2. errors as exceptions carrying the stable code, the connection usable after;
3. events as an iterator and to a callback, server.stopping at the end;
4. timeouts and late replies, a lost connection (a fake daemon that stalls or
   hangs up), the context manager closing what the connection owned;
5. the stream reader on regions written here byte by byte (header checks,
   seals, checksum, a previous owner's pose, lapping and the dropped count);
6. a 1 kHz stream read by libanimclient (c_stream_reader) and by this package
   at once, the same region (a proxy on the socket hands both the same
   descriptor), compared pose for pose: never a torn pose, the same bytes;
7. animd.draw and python3 -m animd draw: PNGs that decode and are not blank,
   the views labelled in the file's up axis; a mesh as the wireframe of the
   triangles sample gives, joint names on request, a joint's trail whose
   pixels lie where sample puts the joint, a camera's path and frusta;
8. assets.list paged on a tree of 2506 assets: three pages of 1000, each
   name once and in order while assets are added and removed between pages;
   iter_assets and assets() page through all of it; `python3 -m animd list |
   head -1` ends quietly;
9. operators: clients() lists the connections with their hello names,
   instances(all=True) every connection's instances, stop(any=True) stops
   another's (its owner told, reason operator) and clients_kill closes one
   (it is told why); a peer of another uid is refused (permission_denied);
10. connecting: no socket, no permission (uid 65534: the socket's group to
   join), a stale socket, each its own exception saying what to do; a
   missing numpy named with the interpreter; the annotations (py.typed,
   every public method's) and mypy over the package when it is installed.
11. a restart on a large tree: a client that comes back the moment the
   daemon accepts plays what it played before at the first try;
12. a glTF's morph weights: named by assets.info, sample's weights space and
   a weights stream's floats, the vertices morphed by them.

Exit 0 pass, 1 fail, 77 skipped (python3-msgpack or numpy missing).
"""
import array
import fcntl
import json
import mmap
import os
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

try:
    import msgpack
    import numpy as np
except ImportError as e:
    print("SKIP: %s (make deps installs python3-msgpack and python3-numpy)" % e)
    sys.exit(77)

SRC = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PYDIR = os.path.join(SRC, "client", "python")
sys.path.insert(0, PYDIR)
import animd                            # noqa: E402  (the tree's, never an installed one)
from animd import stream as shm         # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemon_fixture import ANIMD, BUILD, TIMEOUT, Daemon  # noqa: E402,F401
DEMO = {"crane.x", "idle.md5anim", "lantern.m2", "orbit.md5camera", "walker.md5anim",
        "walker.md5mesh"}
WALK = {"asset": "walker.md5anim", "mesh": "walker.md5mesh"}

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("not ok:", what)
    return cond


def raises(exc, fn, what):
    try:
        fn()
    except exc as e:
        return e
    except Exception as e:                # noqa: BLE001  (any other is the failure)
        check(False, "%s: raised %r, not %s" % (what, e, exc.__name__))
        return None
    check(False, "%s: no %s raised" % (what, exc.__name__))
    return None


def stop_daemon(d):
    rc, log = d.stop()
    check(rc == 0, "the daemon exits 0 on SIGTERM (got %s)" % rc)
    if failures:
        print("daemon log:\n" + log)


# ---- 1. every method ---------------------------------------------------------

def t_methods(d):
    with animd.Client(d.sock) as c:
        h = c.hello()
        check(h["protocol"] == animd.PROTOCOL_VERSION == 1 and h["server"].startswith("animd "),
              "hello: protocol 1 and the server's name (%r)" % h)
        check(c.server == h or c.server["connection"] == h["connection"],
              "the client said hello on connecting")
        st = c.status()
        check(st["assets"]["count"] == len(DEMO) and st["connections"] >= 1 and
              "memory" in st, "status: the demo's assets (%r)" % st.get("assets"))
        names = {a["asset"] for a in c.assets()}
        check(names == DEMO, "assets: assets.list's names, as a list (%r)" % names)
        # READY comes once the assets are indexed; they load after it, and
        # an entry changes as its asset loads (a compressed clip takes a
        # while), so the lists are compared once every load is done.
        deadline = time.monotonic() + 60
        while c.status()["assets"]["states"]["loading"] > 0 and time.monotonic() < deadline:
            time.sleep(0.02)
        check(c.assets_list() == c.assets() == c.call("assets.list")["assets"],
              "assets_list, assets and call('assets.list') agree")
        info = c.info(asset="walker.md5anim")
        check(info["skeleton"]["joint_count"] == 10 and info["axes"]["up"] == "z_up" and
              info["clips"][0]["name"] == "walker", "info: assets.info of walker.md5anim")
        check(c.assets_info(asset="crane.x")["axes"]["up"] == "y_up", "assets_info: crane.x is y-up")
        r = c.reload(asset="walker.md5anim")
        check(r["asset"] == "walker.md5anim" and r["unchanged"] is True, "reload: unchanged (%r)" % r)
        check(c.assets_reload(asset="walker.md5anim")["generation"] == r["generation"],
              "assets_reload")

        p = c.play(asset="walker.md5anim", mesh="walker.md5mesh", clip="walker", loop="loop",
                   speed=1.0, start=0.25, root_motion="raw")
        inst = p["instance"]
        check(isinstance(inst, int) and p["state"] == "playing" and p["clip"] == "walker" and
              p["mesh"] == "walker.md5mesh" and p["layers"] == [], "play: the instance state (%r)" % p)
        q = c.play(asset="walker.md5anim", loop="once", start=0.25,
                   at_ns=time.monotonic_ns() - 500_000_000)
        check(0.75 <= q["time"] < 5.75, "play: at_ns half a second back (%r)" % q)
        c.stop(instance=q)
        q = c.play(asset="walker.md5anim", loop="once", start=0.25,
                   at=time.monotonic_ns() - 500_000_000)
        check(0.75 <= q["time"] < 5.75, "play: at, at_ns's old name (%r)" % q)
        c.stop(instance=q)
        check(c.pause(instance=inst)["state"] == "paused", "pause")
        check(c.seek(instance=inst, time=0.5)["time"] == 0.5, "seek: time 0.5 while paused")
        check(c.seek(instance=np.int64(inst), time=np.float32(0.25))["time"] == 0.25,
              "numpy scalars as arguments")
        check(c.resume(instance=p)["state"] == "playing", "resume (the instance given as play's map)")
        check(c.speed(instance=inst, speed=2.0)["speed"] == 2.0, "speed")
        ids = [i["instance"] for i in c.instances()]
        check(ids == [inst] and [i["instance"] for i in c.instances_list()] == ids,
              "instances: instances.list, as a list (%r)" % ids)
        la = c.layer_add(instance=inst, asset="idle.md5anim", weight=0.5, mode="override",
                         mask=[{"joints": ["spine"], "weight": 0.5}])
        layer = la.get("layer")
        check(len(la["layers"]) == 1 and la["layers"][0]["mask"] == [{"joint": "spine", "weight": 0.5}]
              and la["layers"][0]["weight"] == 0.5, "layer_add: a masked override layer (%r)" % la)
        ls = c.layer_set(instance=inst, layer=layer, weight=1.0, fade=10.0)
        check(ls["layers"][0]["target"] == 1.0 and ls["layers"][0]["fade_left"] > 0, "layer_set")
        check(c.layer_remove(instance=inst, layer=layer)["layers"] == [], "layer_remove")
        sw = c.play(instance=inst, asset="idle.md5anim", fade=0)
        check(sw["instance"] == inst and sw["clip"] == "idle", "play on an instance: a cut to idle")
        stopped = c.stop(instance=inst)
        check(stopped["state"] == "stopped" and c.instances() == [], "stop")

        t_sample(c)
        sub = c.subscribe(["instance.ended", "asset.reloaded"])
        check(sorted(sub["events"]) == ["asset.reloaded", "instance.ended"], "subscribe (%r)" % sub)
        check(c.subscribe([])["events"] == [], "subscribe to nothing")
        t_stream_methods(c)
        stats = c.stats()
        check(any(k["self"] for k in stats["connections"]) and "streams" in stats, "stats")

        # monitor: a second connection sees this one's requests.
        with animd.Client(d.sock) as m:
            check(m.monitor()["connection"] == m.server["connection"], "monitor")
            c.status()
            ev = m.next_event(TIMEOUT)
            check(ev["type"] == "monitor.request" and ev["method"] == "status" and
                  ev["connection"] == c.server["connection"], "monitor: a monitor.request event (%r)" % ev)


def t_sample(c):
    s = c.sample(asset="walker.md5anim", mesh="walker.md5mesh", time=0.25, space="model")
    check(isinstance(s, animd.Sample) and isinstance(s, dict) and s["space"] == "model",
          "sample: a Sample, the protocol's map")
    m = np.array([j["m"] for j in s["joints"]], np.float32).reshape(-1, 3, 4)
    check(s.joints.shape == (10, 3, 4) and s.joints.dtype == np.float32 and
          np.array_equal(s.joints, m), "sample model: joints (n, 3, 4) are the reply's matrices")
    check(np.array_equal(s.positions, m[:, :, 3]), "sample model: positions, the last column")
    check(s.names[0] == s["joints"][0]["name"] and list(s.parents) ==
          [j["parent"] for j in s["joints"]], "sample: names and parents")
    check(c.sample(asset="walker.md5anim", mesh="walker.md5mesh", time=0.25).space == "model",
          "sample: model by default")
    sk = c.sample(asset="walker.md5anim", mesh="walker.md5mesh", time=0.25, space="skin")
    check(sk.joints.shape == (10, 3, 4) and np.array_equal(
        sk.joints, np.array([j["m"] for j in sk["joints"]], np.float32).reshape(-1, 3, 4)),
        "sample skin: (n, 3, 4)")
    lo = c.sample(asset="walker.md5anim", mesh="walker.md5mesh", time=0.25, space="local")
    j0 = lo["joints"][3]
    check(lo.joints.shape == (10, 10) and np.array_equal(lo.t[3], np.float32(j0["t"])) and
          np.array_equal(lo.r[3], np.float32(j0["r"])) and np.array_equal(lo.s[3], np.float32(j0["s"])),
          "sample local: t, r, s")
    v = c.sample(asset="walker.md5anim", mesh="walker.md5mesh", time=0.25, space="vertices")
    pos = np.array([p for m_ in v["meshes"] for p in m_["positions"]], np.float32)
    nrm = np.array([p for m_ in v["meshes"] for p in m_["normals"]], np.float32)
    check(v.vertices.shape == pos.shape and pos.shape[1] == 3 and np.array_equal(v.vertices, pos) and
          np.array_equal(v.normals, nrm), "sample vertices: (n, 3) positions and normals")
    cam = c.sample(asset="orbit.md5camera", time=0.5)
    check(cam.space == "camera" and np.array_equal(cam.position, np.float32(cam["camera"]["position"]))
          and np.array_equal(cam.orientation, np.float32(cam["camera"]["orientation"])) and
          cam.fov == np.float32(cam["camera"]["fov"]), "sample camera")
    e = c.sample(asset="lantern.m2", time=0.5, space="emitters")
    em = e["emitters"]
    check(e.emitters.shape == (len(em), 24) and len(em) >= 1 and
          np.array_equal(e.joints[0], np.float32(em[0]["m"]).reshape(3, 4)) and
          e.params[0][0] == np.float32(em[0]["params"]["emission_speed"]) and
          bool(e.enabled[0]) == em[0]["enabled"], "sample emitters: matrices, params, on/off")
    at = c.sample(asset="lantern.m2", time=0.5, space="attachments")
    pt = at["attachments"]
    check(animd.SPACES[6] == "attachments" and at.attachments.shape == (1, 16) and
          pt[0]["id"] == 11 and pt[0]["bone"] == 0 and
          np.array_equal(at.joints[0], np.float32(pt[0]["m"]).reshape(3, 4)) and
          at.ids.tolist() == [11] and at.joint_indices.tolist() == [pt[0]["joint"]] and
          at.animate.tolist() == [pt[0]["animate"]] and at.ids.dtype == np.uint32,
          "sample attachments: matrices, animate, ids and joints (%r)" % pt)
    raises(animd.Unsupported, lambda: c.sample(asset="walker.md5anim", time=0.5,
                                               space="attachments"),
           "sample attachments of an md5anim")
    bl = c.sample(asset="walker.md5anim", mesh="walker.md5mesh", time=0.25,
                  layers=[{"asset": "idle.md5anim", "time": 0.0, "weight": 0.5}])
    check(bl["layers"][0]["weight"] == 0.5 and bl.joints.shape == (10, 3, 4), "sample with layers")


def t_stream_methods(c):
    st = c.stream_open(space="model", rate=0, instances=4, joints=64, depth=8)
    check(isinstance(st, animd.Stream) and st.space == "model" and st.channels == 4 and
          st.depth == 8 and st.max_elements == 64 and st.rate == 0 and st.live,
          "stream_open: a mapped Stream (%r)" % st)
    a = c.play(stream=st, start=0.25, **WALK)
    b = c.play(stream=st.id, start=0.5, **WALK)
    check(a["stream"] == st.id == b["stream"] and a["channel"] != b["channel"],
          "play into a stream given as a Stream and as its id")
    for inst, t in ((a, 0.25), (b, 0.5)):
        p = st.latest(inst)
        check(p is not None and p.instance == inst["instance"] and p.seq == 0 and
              p.joints.shape == (10, 3, 4), "a rate-0 stream has the pose at once")
        # Paused and sought, the pose is at exactly t: sample's, bit for bit.
        c.pause(instance=inst)
        c.seek(instance=inst, time=t)
        p = st.latest(inst)
        check(p.clip_time == t and p.seq == 2 and np.array_equal(p.joints, c.sample(time=t, **WALK).joints),
              "a stream's pose is sample's (t=%g)" % t)
    c.seek(instance=a, time=0.75)
    p = st.latest(a)
    check(p.clip_time == 0.75 and p.paused and np.array_equal(p.joints, c.sample(time=0.75, **WALK).joints),
          "seek publishes at once: the new pose, paused")
    got = list(st.poses(a))
    check([q.seq for q in got] == list(range(len(got))) and got[-1].clip_time == 0.75 and
          all(q.dropped == 0 for q in got), "poses: every pose in order, none dropped")
    check(list(st.poses(a)) == [], "poses: nothing new, nothing returned")
    c.seek(instance=a, time=0.1)
    new = list(st.poses(a))
    check(len(new) == 1 and new[0].seq == got[-1].seq + 1 and new[0].clip_time == 0.1,
          "poses: the next pose after the last read")
    raises(animd.StreamError, lambda: st.latest(999), "latest of an instance not in the stream")
    check(c.stream_close(stream=st) == {"stream": st.id} and st.state == "closed",
          "stream_close: the header says closed")
    p = st.latest(b)
    check(p is not None and p.clip_time == 0.5 and p.instance == b["instance"],
          "a closed stream's last pose stays readable")
    rest = list(st.poses(b))
    check(len(rest) == 3 and rest[-1].clip_time == 0.5 and list(st.poses(b)) == [],
          "poses on a closed stream: each pose once, then none (%d)" % len(rest))
    st.unmap()
    raises(animd.StreamError, lambda: st.latest(b), "an unmapped stream refuses reads")
    v = c.stream_open(space="vertices", rate=0, normals=True, joints=256)
    i = c.play(stream=v, **WALK)
    c.pause(instance=i)
    c.seek(instance=i, time=0.25)
    p = v.latest(i)
    s = c.sample(time=0.25, space="vertices", **WALK)
    check(p.vertices.shape == s.vertices.shape and np.array_equal(p.vertices, s.vertices) and
          np.array_equal(p.normals, s.normals), "a vertices stream with normals: sample's vertices")
    v.close()
    check(not v.live if v._mm else True, "Stream.close")
    c.stop(instance=i)
    # An M2's attachment points: sample's rows, bit for bit (the ids and
    # joints are integers in the float rows).
    ap = c.stream_open(space="attachments", rate=0, joints=4)
    k = c.play(stream=ap, asset="lantern.m2")
    c.pause(instance=k)
    c.seek(instance=k, time=0.7)
    p = ap.latest(k)
    s = c.sample(asset="lantern.m2", time=0.7, space="attachments")
    check(ap.space == "attachments" and p.data.shape == (1, 16) and
          np.array_equal(p.data.view(np.uint32), s.data.view(np.uint32)) and
          p.ids.tolist() == [11] and p.joint_indices.tolist() == s.joint_indices.tolist() and
          bool(p.animate[0]) and np.array_equal(p.positions, s.positions),
          "an attachments stream: sample's rows, bit for bit")
    ap.close()
    c.stop(instance=k)
    c.stop(instance=a)
    c.stop(instance=b)


# ---- 2. errors ---------------------------------------------------------------

def t_errors(d):
    with animd.Client(d.sock) as c:
        e = raises(animd.NotFound, lambda: c.play(asset="no-such.md5anim"), "an unknown asset")
        check(e is not None and e.code == animd.errors.NOT_FOUND == "not_found" and
              e.method == "play" and isinstance(e, animd.Error) and "no-such" in e.message,
              "NotFound carries code, method and message")
        e = raises(animd.BadRequest, lambda: c.play(asset="walker.md5anim", speed="fast"),
                   "a wrong type")
        check(e is not None and e.code == "bad_request", "bad_request's code")
        e = raises(animd.UnknownMethod, lambda: c.call("no.such.method"), "an unknown method")
        check(e is not None and e.code == "unknown_method", "unknown_method's code")
        e = raises(animd.Unsupported, lambda: c.sample(asset="walker.md5anim", time=0,
                                                       space="camera"), "camera of a skeleton")
        check(e is not None and e.code == "unsupported", "unsupported's code")
        raises(animd.NotFound, lambda: c.pause(instance=12345), "pause of no instance")
        streams = [c.stream_open(space="model", joints=1, instances=1, depth=2) for _ in range(16)]
        e = raises(animd.Limit, lambda: c.stream_open(space="model", joints=1, instances=1,
                                                      depth=2), "the 17th stream")
        check(e is not None and e.code == "limit", "limit's code")
        for s in streams:
            s.close()
        c.subscribe(["asset.error"])
        with open(os.path.join(d.assets, "broken.md5anim"), "w") as f:
            f.write("MD5Version 10\nnumFrames junk\n")
        ev = c.next_event(TIMEOUT)
        check(ev["type"] == "asset.error" and ev["asset"] == "broken.md5anim", "asset.error event")
        e = raises(animd.AssetError, lambda: c.info(asset="broken.md5anim"), "a broken asset")
        check(e is not None and e.code == "asset_error" and "broken.md5anim" in e.message,
              "asset_error's code and located message")
        os.unlink(os.path.join(d.assets, "broken.md5anim"))
        check(set(animd.CODES) == {"bad_request", "unknown_method", "not_found", "limit",
                                   "asset_error", "unsupported", "shutting_down", "internal",
                                   "permission_denied", "loading"},
              "the stable codes of PROTOCOL.md section 6")
        unknown = animd.errors.from_reply({"code": "brand_new", "message": "m"}, "x")
        check(type(unknown) is animd.Error and unknown.code == "brand_new",
              "an unknown code is a plain Error")
        check(c.status()["assets"]["count"] >= len(DEMO), "the connection is usable after errors")


# ---- 3. events ---------------------------------------------------------------

def t_events(d):
    with animd.Client(d.sock) as c:
        c.subscribe(["instance.ended"])
        p = c.play(asset="idle.md5anim", mesh="walker.md5mesh", loop="once")
        got = None
        for ev in c.events(timeout=TIMEOUT):
            got = ev
            break
        check(got is not None and got["type"] == "instance.ended" and
              got["instance"] == p["instance"], "events(): an iterator (%r)" % got)
        raises(animd.Timeout, lambda: c.next_event(0.2), "next_event with nothing to come")
        check(list(c.events(timeout=0.2)) == [], "events(timeout) ends when none comes")
    seen = []
    with animd.Client(d.sock, on_event=seen.append) as c:
        c.subscribe(["instance.ended"])
        p = c.play(asset="idle.md5anim", mesh="walker.md5mesh", loop="once")
        deadline = time.time() + TIMEOUT
        while not seen and time.time() < deadline:
            time.sleep(0.02)
            c.process()
        check([e["type"] for e in seen] == ["instance.ended"] and seen[0]["instance"] == p["instance"],
              "on_event: a callback called from process() (%r)" % seen)
        check(list(c.events(timeout=0.1)) == [], "with a callback nothing is queued")


def t_clip_events(d):
    """assets.info's attachments, events and moments of the demo lantern
    (Stand, a 2 s loop, creaks at 0.5 and 1.5 s; the variation's second
    moment lies past its end, as the file has it); clip.event as a map,
    every field, at_ns worked out from play's at; play(events=False) sends
    none."""
    with animd.Client(d.sock) as c:
        info = c.info(asset="lantern.m2")
        check(info["attachments"] == [{"index": 0, "id": 11, "bone": 0, "joint": 2,
                                       "position": [0.5, 0.0, info["attachments"][0]["position"][2]]}]
              and abs(info["attachments"][0]["position"][2] - 1.4) < 1e-6,
              "info: the lantern's attachment (%r)" % info["attachments"])
        check(info["events"] == [{"index": 0, "id": "$CSD", "data": 7, "bone": 1, "joint": 1,
                                  "position": [0.0, 0.0, 2.0]}], "info: its event (%r)" % info["events"])
        check([cl["events"] for cl in info["clips"]] ==
              [[{"time": 0.5, "event": 0}, {"time": 1.5, "event": 0}], [],
               [{"time": 0.5, "event": 0}, {"time": 32.767, "event": 0}]],
              "info: each clip's moments")
        check("clip.event" in animd.EVENT_TYPES, "EVENT_TYPES names clip.event")
        c.subscribe(["clip.event"])
        at = time.monotonic_ns() + 100_000_000
        quiet = c.play(asset="lantern.m2", clip="0", speed=4.0, events=False)
        p = c.play(asset="lantern.m2", clip="0", speed=4.0, at_ns=at)
        got = []
        for ev in c.events(timeout=TIMEOUT):
            check(ev["instance"] != quiet["instance"], "events=False: nothing from it (%r)" % ev)
            got.append(ev)
            if len(got) == 2:
                break
        check(len(got) == 2, "two crossings (%r)" % got)
        if len(got) == 2:
            e = got[0]
            check(e["type"] == "clip.event" and e["instance"] == p["instance"] and
                  e["asset"] == "lantern.m2" and e["clip"] == "0" and e["event"] == 0 and
                  e["id"] == "$CSD" and e["data"] == 7 and e["bone"] == 1 and e["joint"] == 1 and
                  e["position"] == [0.0, 0.0, 2.0] and e["time"] == 0.5 and
                  e["playback_time"] == 0.5 and e["direction"] == "forward" and e["missed"] == 0,
                  "clip.event: its fields (%r)" % e)
            check([g["at_ns"] for g in got] == [at + 125_000_000, at + 375_000_000],
                  "clip.event: at_ns from play's at (%r)" % [g["at_ns"] - at for g in got])
            check(got[1]["playback_time"] == 1.5 and got[1]["time"] == 1.5,
                  "the second creak of the loop")
        c.stop(instance=p)
        c.stop(instance=quiet)


def t_stopping(d):
    c = animd.Client(d.sock)
    d.proc.send_signal(signal.SIGTERM)
    types = [e["type"] for e in c.events(timeout=TIMEOUT)]
    check(types == ["server.stopping"], "server.stopping, then the iteration ends (%r)" % types)
    raises((animd.Disconnected, animd.Timeout), c.status, "a call after the daemon left")
    c.close()


# ---- 3b. names that are not text --------------------------------------------

def t_unservable(d):
    """Files whose names are not UTF-8 or hold control characters are not
    served: this package decodes strictly and never meets their bytes."""
    base = os.fsencode(d.assets)
    with open(os.path.join(base, b"idle.md5anim"), "rb") as f:
        text = f.read()
    bad = [b"bad\xff.md5anim", b"nl\nname.md5anim", b"c1\xc2\x9b.md5anim", b"dir\xfe/x.md5anim"]

    def put(name):
        path = os.path.join(base, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(text)

    try:
        with animd.Client(d.sock) as c:
            c.subscribe(["asset.loaded", "asset.removed"])
            for n in bad:
                put(n)
            put(b"names-ok.md5anim")
            seen = None
            for ev in c.events(timeout=TIMEOUT):
                if ev["type"] == "asset.loaded" and ev["asset"] == "names-ok.md5anim":
                    seen = ev["asset"]
                    break
            check(seen is not None, "the good file's event, none for the others")
            names = [a["asset"] for a in c.assets()]
            check("names-ok.md5anim" in names and not any("\ufffd" in n or "\n" in n for n in names)
                  and len(names) == len(DEMO) + 1, "assets.list: only good names (%r)" % names)
            deadline = time.time() + TIMEOUT
            while c.status()["assets"]["unservable"] != 4 and time.time() < deadline:
                time.sleep(0.05)
            check(c.status()["assets"]["unservable"] == 4, "status counts them (assets.unservable)")
            os.rename(os.path.join(base, bad[0]), os.path.join(base, b"names-fixed.md5anim"))
            ev = c.next_event(TIMEOUT)
            check(ev["type"] == "asset.loaded" and ev["asset"] == "names-fixed.md5anim",
                  "renamed to a good name: served (%r)" % ev)
            for n in (b"names-ok.md5anim", b"names-fixed.md5anim"):
                os.unlink(os.path.join(base, n))
            gone = {c.next_event(TIMEOUT)["asset"] for _ in range(2)}
            check(gone == {"names-ok.md5anim", "names-fixed.md5anim"}, "removed (%r)" % gone)
            check(c.status()["assets"]["count"] == len(DEMO), "the connection is usable after")
    except Exception as e:              # noqa: BLE001  (the failure being tested for)
        check(False, "names that are not text: %r" % e)
    finally:
        for n in bad + [os.path.dirname(bad[3]), b"names-ok.md5anim", b"names-fixed.md5anim"]:
            p = os.path.join(base, n)
            if os.path.isdir(p):
                os.rmdir(p)
            elif os.path.exists(p):
                os.unlink(p)


# ---- 4. timeouts, a lost connection, the context manager ----------------------

class FakeDaemon(threading.Thread):
    """Answers the first request late (after `delay`), the others at once,
    echoing the msgid; or, with hangup, closes on the first request."""

    def __init__(self, path, delay=0.0, hangup=False, silent=False):
        super().__init__(daemon=True)
        self.srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.srv.bind(path)
        self.srv.listen(1)
        self.delay, self.hangup, self.silent = delay, hangup, silent
        self.start()

    def run(self):
        conn, _ = self.srv.accept()
        up = msgpack.Unpacker(raw=False)
        first = True
        while True:
            data = conn.recv(65536)
            if not data:
                break
            up.feed(data)
            for req in up:
                if self.hangup:
                    conn.close()
                    return
                if self.silent:
                    continue
                if first:
                    first = False
                    time.sleep(self.delay)
                conn.sendall(msgpack.packb([1, req[1], None, {"echo": req[1], "method": req[2]}]))
        conn.close()


def t_timeouts(d):
    tmp = tempfile.mkdtemp(prefix="animd-fake-")
    try:
        FakeDaemon(os.path.join(tmp, "late"), delay=0.5)
        c = animd.Client(os.path.join(tmp, "late"), timeout=0.2, check=False)
        raises(animd.Timeout, c.status, "a reply slower than the timeout")
        time.sleep(0.5)
        r = c.call("hello")
        check(r["method"] == "hello" and r["echo"] == 2,
              "after a timeout the late reply is dropped, the next matched by msgid (%r)" % r)
        c.close()
        FakeDaemon(os.path.join(tmp, "silent"), silent=True)
        raises(animd.Timeout, lambda: animd.Client(os.path.join(tmp, "silent"), timeout=0.2),
               "hello on connecting times out")
        FakeDaemon(os.path.join(tmp, "hangup"), hangup=True)
        c = animd.Client(os.path.join(tmp, "hangup"), check=False)
        raises(animd.Disconnected, c.status, "the daemon hangs up")
        c.close()
        raises(OSError, lambda: animd.Client(os.path.join(tmp, "nobody")), "no daemon there")
        os.environ["ANIMD_SOCKET"] = d.sock
        with animd.Client() as c:
            check(c.socket == d.sock and c.status()["uptime"] >= 0, "the default socket: $ANIMD_SOCKET")
        del os.environ["ANIMD_SOCKET"]
        check(animd.default_socket() == "/run/animd/animd.sock", "the default socket otherwise")
    finally:
        shutil.rmtree(tmp)


def t_context(d):
    with animd.Client(d.sock) as c:
        cid = c.server["connection"]
        st = c.stream_open(space="model")
        c.play(stream=st, **WALK)
    check(c.closed, "the context manager closed the client")
    raises(animd.StreamError, lambda: st.latest(1), "its streams are unmapped with it")
    with animd.Client(d.sock) as o:
        deadline = time.time() + TIMEOUT
        while time.time() < deadline:
            stats = o.stats()
            if all(k["connection"] != cid for k in stats["connections"]):
                break
            time.sleep(0.02)
        check(all(k["connection"] != cid for k in stats["connections"]) and
              all(s["connection"] != cid for s in stats["streams"]) and stats["instances"] == 0,
              "the daemon ended the connection, its stream and instance")


# ---- 5. the reader on regions written here -----------------------------------

def region(channels=1, depth=2, max_el=2, space=1):
    """A writable memfd laid out as animd_shm_layout does, and its header."""
    stride = shm.STRIDES[space]
    slot = -(-(64 + stride * max_el) // 64) * 64
    chan = 64 + slot * depth
    size = 256 + chan * channels
    fd = os.memfd_create("animd-test", os.MFD_ALLOW_SEALING)
    os.ftruncate(fd, size)
    mm = mmap.mmap(fd, size)
    h = dict(magic=shm.MAGIC, layout_version=1, header_bytes=256, region_bytes=size, epoch=77,
             stream_id=5, space=space, element_stride=stride, max_elements=max_el,
             channel_count=channels, slot_count=depth, slot_bytes=slot, channels_offset=256,
             channel_bytes=chan, rate_hz=1000, state=1, ticks=0, features=0)
    return fd, mm, h


def put_header(mm, h):
    mm[0:92] = shm._HEADER.pack(*[h[k] for k in shm._FIELDS])


def put_pose(mm, h, c, n, instance, floats, bad_sum=False, owner=True):
    ch = h["channels_offset"] + c * h["channel_bytes"]
    off = ch + 64 + (n % h["slot_count"]) * h["slot_bytes"]
    payload = np.asarray(floats, np.float32).tobytes()
    words = np.frombuffer(payload, np.uint32)
    total = int(np.bitwise_xor(words, np.arange(len(words), dtype=np.uint32)).sum(dtype=np.uint32))
    seq = 2 * n + 2
    cs = (total + seq * 0x9E3779B1 + (1 if bad_sum else 0)) & 0xFFFFFFFF
    count = len(payload) // h["element_stride"]
    mm[off:off + 64] = shm._SLOT.pack(seq, instance, 100 + n, n / 1000.0, 3, count, 0, 1, cs, 0)
    mm[off + 64:off + 64 + len(payload)] = payload
    mm[ch:ch + 8] = struct.pack("<Q", n + 1)
    if owner:
        mm[ch + 8:ch + 16] = struct.pack("<Q", instance)


def reply_of(h):
    return {"stream": h["stream_id"], "epoch": h["epoch"], "space": shm.SPACES[h["space"]],
            "region_bytes": h["region_bytes"], "normals": False}


def open_region(fd, h, seal=True):
    if seal:
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW)
    return animd.Stream(os.dup(fd), reply_of(h))


def t_reader():
    pose = np.arange(24, dtype=np.float32)
    fd, mm, h = region()
    put_header(mm, h)
    put_pose(mm, h, 0, 0, 7, pose)
    s = open_region(fd, h)
    p = s.latest(7)
    check(p is not None and p.seq == 0 and p.instance == 7 and p.tick == 100 and p.generation == 3
          and p.epoch == 77 and np.array_equal(p.joints.reshape(-1), pose) and not p.data.flags.writeable,
          "a whole pose from a region written here, read-only")
    put_pose(mm, h, 0, 1, 7, pose + 1, bad_sum=True)
    raises(animd.StreamError, lambda: s.latest(7), "a pose whose checksum fails is never returned")
    put_pose(mm, h, 0, 1, 7, pose + 1)
    check(np.array_equal(s.latest(7).data.reshape(-1), pose + 1), "the newest pose once whole")
    check(np.array_equal(p.data.reshape(-1), pose), "a pose read before is a copy: unchanged")
    put_pose(mm, h, 0, 2, 9, pose + 2, owner=False)
    check(s.latest(7) is None, "the newest pose of a previous owner is not this instance's")
    # Lapping: a cursor at pose 0 when poses 0..4 were published, depth 2.
    fd2, mm2, h2 = region()
    put_header(mm2, h2)
    put_pose(mm2, h2, 0, 0, 7, pose)
    s2 = open_region(fd2, h2)
    first = s2.next(7)
    for n in range(1, 5):
        put_pose(mm2, h2, 0, n, 7, pose + n)
    later = list(s2.poses(7))
    check(first.seq == 0 and [q.seq for q in later] == [4] and later[0].dropped == 3 and
          np.array_equal(later[0].data.reshape(-1), pose + 4),
          "poses: a lapped reader resumes at the oldest whole pose and counts the dropped (%r)"
          % [(q.seq, q.dropped) for q in later])
    check(s2.next(7) is None, "next: nothing newer")
    raises(animd.StreamError, lambda: s2.latest(8), "an instance in no channel")
    s2.unmap()

    def refused(change, what, seal=True, reply=None):
        f, m, hh = region()
        change(hh)
        put_header(m, hh)
        if seal:
            fcntl.fcntl(f, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK)
        r = reply_of(region()[2]) if reply is None else reply
        raises(animd.StreamError, lambda: animd.Stream(os.dup(f), r), what)
        m.close()
        os.close(f)

    refused(lambda hh: hh.update(magic=0), "a bad magic")
    refused(lambda hh: hh.update(layout_version=2), "another layout version")
    refused(lambda hh: hh.update(element_stride=40), "a stride not the space's")
    refused(lambda hh: hh.update(slot_count=3), "a depth not a power of two")
    refused(lambda hh: hh.update(region_bytes=1 << 20), "a region larger than the mapping")
    refused(lambda hh: hh.update(channel_bytes=(1 << 64) - 64), "channels past the region")
    refused(lambda hh: hh.update(slot_bytes=64), "slots too small")
    refused(lambda hh: hh.update(features=2), "an unknown feature bit")
    refused(lambda hh: None, "an unsealed descriptor", seal=False)
    refused(lambda hh: hh.update(epoch=78), "an epoch that is not the reply's")
    refused(lambda hh: hh.update(stream_id=6), "a stream id that is not the reply's")
    s.unmap()
    for m in (mm, mm2):
        m.close()
    os.close(fd)
    os.close(fd2)


# ---- 6. the same stream read by libanimclient and by this package ------------

class Proxy(threading.Thread):
    """Between a client and the daemon: forwards bytes both ways, and keeps
    a duplicate of every descriptor the daemon sends with stream.open's
    reply, with that reply, and the instances play put into streams.
    Replies are decoded before they are forwarded, so once the client has
    one the proxy knows it."""

    def __init__(self, path, upstream):
        super().__init__(daemon=True)
        self.srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.srv.bind(path)
        self.srv.listen(1)
        self.upstream = upstream
        self.streams, self.played, self.fds = [], [], []
        self.start()

    def run(self):
        cl, _ = self.srv.accept()
        up = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        up.connect(self.upstream)
        dec = msgpack.Unpacker(raw=False)
        fdsize = socket.CMSG_SPACE(16 * 4)
        while True:
            r = select.select([cl, up], [], [])[0]
            if cl in r:
                data = cl.recv(65536)
                if not data:
                    break
                up.sendall(data)
            if up in r:
                data, anc, _, _ = up.recvmsg(65536, fdsize)
                if not data:
                    break
                fds = []
                for level, kind, payload in anc:
                    if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                        a = array.array("i")
                        a.frombytes(payload[:len(payload) - len(payload) % 4])
                        fds.extend(a)
                self.fds.extend(os.dup(f) for f in fds)
                dec.feed(data)
                for m in dec:
                    res = m[3] if m[0] == 1 and m[2] is None else None
                    if isinstance(res, dict) and "epoch" in res and "region_bytes" in res:
                        self.streams.append((res, self.fds.pop(0)))
                    elif isinstance(res, dict) and "stream" in res and "instance" in res:
                        self.played.append(res["instance"])
                anc_out = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))] if fds else []
                cl.sendmsg([data], anc_out)
                for f in fds:
                    os.close(f)
        cl.close()
        up.close()


def fnv1a(b):
    h = 0xCBF29CE484222325
    for x in b:
        h = ((h ^ x) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def t_against_c(d, instances, poses, depth):
    reader = os.path.join(BUILD, "integration", "c_stream_reader")
    if not os.path.exists(reader):
        check(False, "%s is built (make check-integration builds it)" % reader)
        return
    tmp = tempfile.mkdtemp(prefix="animd-proxy-")
    what = "%d instances, depth %d" % (instances, depth)
    try:
        px = Proxy(os.path.join(tmp, "p.sock"), d.sock)
        proc = subprocess.Popen([reader, os.path.join(tmp, "p.sock"), str(instances), str(poses),
                                 str(depth)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                text=True)
        line = proc.stdout.readline()
        if not check(line == "ready\n" and len(px.streams) == 1 and len(px.played) == instances,
                     "%s: the C reader is ready, its stream seen (%r)" % (what, line)):
            proc.kill()
            proc.wait()
            return
        reply, fd = px.streams[0]
        st = animd.Stream(fd, reply)
        check(st.rate == 1000 and st.depth == depth, "%s: the C reader's stream, mapped here" % what)
        ids = px.played
        mine = {k: [] for k in range(instances)}
        latest = []
        proc.stdin.write("go\n")
        proc.stdin.flush()
        # Its report is larger than a pipe holds: read it while it comes.
        report = []
        drain = threading.Thread(target=lambda: report.append(proc.stdout.read()), daemon=True)
        drain.start()
        last = [None] * instances
        while proc.poll() is None:
            fresh = 0
            for k, i in enumerate(ids):
                for p in st.poses(i):
                    mine[k].append((p.seq, p.tick, p.clip_time, p.generation, p.dropped,
                                    p.data.tobytes()))
                    fresh += 1
                q = st.latest(i)
                if q is not None and q.seq != last[k]:
                    last[k] = q.seq
                    latest.append((k, q.seq, q.instance == i, q.data.tobytes()))
            if not fresh:
                time.sleep(0.0005)      # two cores: leave one to the daemon
        proc.wait(TIMEOUT)
        drain.join(TIMEOUT)
        out = report[0] if report else ""
        check(proc.returncode == 0, "%s: the C reader exits 0" % what)
        theirs = {k: {} for k in range(instances)}
        counts = [0] * instances
        for ln in out.splitlines():
            f = ln.split()
            k = int(f[1])
            theirs[k][int(f[2])] = (int(f[3]), float.fromhex(f[4]), int(f[5]), int(f[7], 16))
            counts[k] += 1
        check(counts == [poses] * instances, "%s: the C reader read %d poses each" % (what, poses))
        common = mismatched = 0
        for k in range(instances):
            seqs = [m[0] for m in mine[k]]
            ok = all(b > a and m[4] == b - a - 1 for a, b, m in zip(seqs, seqs[1:], mine[k][1:]))
            check(ok, "%s: instance %d: poses in order, dropped counts the gaps" % (what, k))
            for seq, tick, ct, gen, _, data in mine[k]:
                c_ = theirs[k].get(seq)
                if c_ is None:
                    continue
                common += 1
                if c_ != (tick, ct, gen, fnv1a(data)):
                    mismatched += 1
        lat_bad = sum(1 for k, seq, same, data in latest if not same or
                      (seq in theirs[k] and theirs[k][seq][3] != fnv1a(data)))
        print("%s at 1 kHz: C read %d poses, Python %d (and %d latest), %d in common" %
              (what, sum(counts), sum(len(v) for v in mine.values()), len(latest), common))
        check(common >= instances * poses // 10,
              "%s: the readers read the same poses (%d in common)" % (what, common))
        check(mismatched == 0, "%s: %d of %d poses differ from libanimclient's" %
              (what, mismatched, common))
        check(lat_bad == 0, "%s: %d latest() poses differ from libanimclient's" % (what, lat_bad))
        st.unmap()
    finally:
        shutil.rmtree(tmp)


# ---- 7. pictures -------------------------------------------------------------

def png_ok(path, what):
    import matplotlib.image as mpimg
    with open(path, "rb") as f:
        check(f.read(8) == b"\x89PNG\r\n\x1a\n", "%s: a PNG" % what)
    img = mpimg.imread(path)
    ink = (img[:, :, :3] < 0.9).any(axis=2).mean()
    red = ((img[:, :, 0] > 0.6) & (img[:, :, 1] < 0.35) & (img[:, :, 2] < 0.35)).sum()
    check(img.ndim == 3 and img.shape[0] > 100 and ink > 0.01 and red > 20,
          "%s: decodes, not blank (%.1f%% ink, %d joint pixels)" % (what, 100 * ink, red))
    return img


def ink_of(img, colour, tol=0.08):
    """Pixels of img within tol of colour ("#rrggbb")."""
    rgb = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    return (abs(img[:, :, :3] - rgb) < tol).all(axis=2)


def t_draw_more(c, tmp):
    """Wireframe, names, trail, camera."""
    import matplotlib.image as mpimg
    from matplotlib.collections import LineCollection
    from animd import draw
    v = c.sample(time=0.3, space="vertices", **WALK)
    check(v["meshes"][0]["triangles"][0] == [0, 2, 1] and v.triangles.shape == (108, 3) and
          v.triangles.max() == len(v.vertices) - 1 and v.triangles[12].tolist() == [8, 10, 9],
          "sample's vertices carry each mesh's triangles, offset in Sample.triangles (%s)"
          % (v.triangles[:1].tolist(),))
    out = os.path.join(tmp, "wire.png")
    fig = draw.render(c, "walker.md5anim", mesh="walker.md5mesh", time=0.3, vertices=True,
                      path=out)
    wires = [x for x in fig.axes[0].collections if isinstance(x, LineCollection)]
    check(len(wires) == 1 and len(wires[0].get_segments()) == 9 * 18,
          "the mesh drawn as a wireframe: every edge once (%s)"
          % [len(w.get_segments()) for w in wires])
    wire = ink_of(mpimg.imread(out), draw.WIRE).sum()
    fig = draw.render(c, "walker.md5anim", mesh="walker.md5mesh", time=0.3,
                      path=os.path.join(tmp, "bare.png"))
    bare = ink_of(mpimg.imread(os.path.join(tmp, "bare.png")), draw.WIRE).sum()
    # Text and antialiased bones come near the colour too: a few.
    check(wire > 1000 and bare * 5 < wire, "wire pixels with the mesh (%d), few without (%d)"
          % (wire, bare))
    check(not fig.axes[0].texts, "no joint names unless asked for")
    fig = draw.render(c, "walker.md5anim", mesh="walker.md5mesh", time=0.3, names=True)
    labels = [t.get_text() for t in fig.axes[0].texts]
    check(labels[:3] == ["origin", "pelvis", "spine"] and len(labels) == 10,
          "names=True labels every joint (%s)" % labels)
    # The trail: where sample puts l_shin, the PNG is the trail's colour.
    out = os.path.join(tmp, "trail.png")
    fig = draw.render(c, "walker.md5anim", mesh="walker.md5mesh", frames=3, trail="l_shin",
                      path=out)
    img = mpimg.imread(out)
    trail = ink_of(img, draw.TRAIL, 0.12)
    ax, hits, times = fig.axes[0], 0, [0.05, 0.2, 0.45, 0.6, 0.85]
    for t in times:
        p = c.sample(time=t, space="model", **WALK)
        x, y = ax.transData.transform((p.positions[5][0], p.positions[5][2]))
        row, col = int(round(img.shape[0] - y)), int(round(x))
        hits += bool(trail[row - 2:row + 3, col - 2:col + 3].any())
    check(hits == len(times), "the trail's pixels lie on l_shin's path (%d of %d points)"
          % (hits, len(times)))
    check(not ink_of(mpimg.imread(os.path.join(tmp, "bare.png")), draw.TRAIL, 0.12).any(),
          "no trail unless asked for")
    raises(ValueError, lambda: draw.render(c, "walker.md5anim", trail="nope"),
           "a trail of no such joint")
    # A camera: path and frusta; a frustum points where the orientation
    # turns +X, as wide as the fov.
    out = os.path.join(tmp, "camera.png")
    fig = draw.render(c, "orbit.md5camera", frames=4, path=out)
    img = mpimg.imread(out)
    check(ink_of(img, draw.FRUSTUM).sum() > 200 and ink_of(img, draw.PATH).sum() > 100,
          "a camera drawn as its path and frusta (%d frustum, %d path pixels)"
          % (ink_of(img, draw.FRUSTUM).sum(), ink_of(img, draw.PATH).sum()))
    check(len(fig.axes) == 3 and fig.axes[0].get_ylabel() == "z (up)", "a camera's three views")
    s = c.sample(asset="orbit.md5camera", time=1.0)
    f = draw.frustum(s, 2.0)
    q = s.orientation.astype(np.float64)
    x, y, z, w = q
    forward = np.array([1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y)])
    half = np.tan(np.radians(float(s.fov)) / 2) * 2.0
    check(np.allclose(f[0], s.position, atol=1e-5) and
          np.allclose(f[1:].mean(axis=0) - f[0], 2.0 * forward, atol=1e-4) and
          abs(np.linalg.norm(f[1] - f[2]) - 2 * half) < 1e-4,
          "a frustum: apex at the position, centred on the view direction, as wide as the fov")


def t_draw(d):
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("skip part: python3-matplotlib is not installed (make deps installs it)")
        return
    from animd import draw
    tmp = tempfile.mkdtemp(prefix="animd-draw-")
    try:
        with animd.Client(d.sock) as c:
            out = os.path.join(tmp, "walker.png")
            fig = draw.render(c, "walker.md5anim", mesh="walker.md5mesh", time=0.3,
                              vertices=True, path=out)
            png_ok(out, "draw.render")
            labels = [a.get_ylabel().split("\n")[-1] for a in fig.axes]
            check(labels == ["z (up)", "z (up)", "y"] and fig.axes[0].get_xlabel() == "x",
                  "a Z-up file's views: side x/z, front y/z, top x/y (%r)" % labels)
            fig = draw.render(c, "crane.x", path=os.path.join(tmp, "crane.png"))
            labels = [(a.get_xlabel(), a.get_ylabel().split("\n")[-1]) for a in fig.axes]
            check(labels == [("x", "y (up)"), ("z", "y (up)"), ("x", "z")],
                  "a Y-up file's views in its own axes (%r)" % labels)
            out = os.path.join(tmp, "lantern.png")
            draw.render(c, "lantern.m2", time=0.5, path=out)
            img = png_ok(out, "an M2 with its emitter")
            orange = ((img[:, :, 0] > 0.8) & (img[:, :, 1] > 0.35) & (img[:, :, 1] < 0.6) &
                      (img[:, :, 2] < 0.3)).sum()
            check(orange > 20, "the M2's particle emitter drawn (%d star pixels)" % orange)
            s = c.sample(time=0.5, **WALK)
            out = os.path.join(tmp, "sample.png")
            draw.pose(s, out, title="walker at 0.5 s")
            png_ok(out, "draw.pose of a Sample")
            st = c.stream_open(space="model", rate=0)
            i = c.play(stream=st, **WALK)
            out = os.path.join(tmp, "stream.png")
            draw.pose(st.latest(i), out, parents=s.parents)
            png_ok(out, "draw.pose of a stream's Pose")
            check(draw.frame_times(1.0, 4) == [0.0, 0.25, 0.5, 0.75] and
                  draw.frame_times(1.0, 3, loop=False) == [0.0, 0.5, 1.0], "frame times across a clip")
            raises(ValueError, lambda: draw.pose(c.sample(time=0, space="local", **WALK)),
                   "a local-space pose is not drawn")
            t_draw_more(c, tmp)
        env = dict(os.environ, PYTHONPATH=PYDIR)
        out = os.path.join(tmp, "sheet.png")
        r = subprocess.run([sys.executable, "-m", "animd", "--socket", d.sock, "draw",
                            "walker.md5anim", "--mesh", "walker.md5mesh", "--frames", "3",
                            "-o", out], env=env, capture_output=True, text=True, timeout=60)
        check(r.returncode == 0 and r.stdout.strip() == out, "python3 -m animd draw --frames 3 (%s)"
              % r.stderr.strip())
        if r.returncode == 0:
            img = png_ok(out, "a contact sheet")
            check(img.shape[0] > img.shape[1], "three rows of views are taller than wide")
        r = subprocess.run([sys.executable, "-m", "animd", "--socket", d.sock, "draw",
                            "walker.md5anim", "--clip", "nope", "-o", out], env=env,
                           capture_output=True, text=True, timeout=60)
        check(r.returncode == 1 and "not_found" in r.stderr, "draw of no clip fails, saying why")
        for extra in (["walker.md5anim", "--mesh", "walker.md5mesh", "--frames", "2",
                       "--vertices", "--names", "--trail", "l_shin"],
                      ["orbit.md5camera", "--frames", "3"]):
            r = subprocess.run([sys.executable, "-m", "animd", "--socket", d.sock, "draw"] +
                               extra + ["-o", out], env=env, capture_output=True, text=True,
                               timeout=60)
            check(r.returncode == 0 and r.stdout.strip() == out,
                  "python3 -m animd draw %s (%s)" % (" ".join(extra), r.stderr.strip()))
        r = subprocess.run([sys.executable, "-m", "animd", "--socket", d.sock, "draw",
                            "walker.md5anim", "--trail", "nope", "-o", out], env=env,
                           capture_output=True, text=True, timeout=60)
        check(r.returncode == 1 and "no joint named 'nope'" in r.stderr,
              "--trail of no such joint fails, saying why (%s)" % r.stderr.strip())
        code = ("import sys; sys.modules['matplotlib'] = None\n"
                "import animd.draw\n"
                "try:\n    animd.draw.pose([[0, 0, 0]])\n"
                "except ImportError as e:\n    print(e)\n")
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        check("python3-matplotlib" in r.stdout, "without matplotlib: a clear error (%r)" % r.stdout)
        r = subprocess.run([sys.executable, "-c", "import sys; sys.modules['matplotlib'] = None\n"
                            "import animd; animd.Client"], env=env)
        check(r.returncode == 0, "the package imports without matplotlib")
    finally:
        shutil.rmtree(tmp)


def readme_example():
    """The first python block of docs/clients.md's "Python" section."""
    with open(os.path.join(SRC, "docs", "clients.md")) as f:
        text = f.read()
    part = text[text.index("## Python"):]
    return part[part.index("```python\n") + 10:part.index("```\n", part.index("```python\n") + 10)]


def t_readme(d, python=sys.executable, env=None):
    """docs/clients.md's example as printed, run where its relative socket path
    (make run's build/animd.sock) names this daemon's."""
    code = readme_example()
    check(len(code.strip().splitlines()) == 10, "docs/clients.md's example is ten lines")
    env = env or dict(os.environ, PYTHONPATH=PYDIR)
    env.pop("ANIMD_SOCKET", None)
    r = subprocess.run([python, "-c", code], cwd=d.dir, env=env, capture_output=True, text=True,
                       timeout=60)
    lines = r.stdout.splitlines()
    check(r.returncode == 0 and len(lines) == 3 and lines[1].startswith("(10, 3, 4) ") and
          "'count': 6" in lines[0], "docs/clients.md's example works as printed (%r %r)" %
          (r.stdout, r.stderr[-500:]))


PAGE_CAMERA = ("MD5Version 10\ncommandline \"\"\n\nnumFrames 1\nframeRate 30\nnumCuts 0\n\n"
               "cuts {\n}\n\ncamera {\n\t( 0 0 64 ) ( 0 0 0 ) 90\n}\n")


def t_paging():
    d = Daemon("animd-pypage-")
    try:
        many = os.path.join(d.assets, "many")
        os.mkdir(many)
        with animd.Client(d.sock) as c:
            c.subscribe(["asset.loaded", "asset.removed"])
            for i in range(2500):
                with open(os.path.join(many, "%04d.md5camera" % i), "w") as f:
                    f.write(PAGE_CAMERA)
            want = set(DEMO) | {"many/%04d.md5camera" % i for i in range(2500)}
            deadline = time.monotonic() + 60
            while c.status()["assets"]["count"] < len(want) and time.monotonic() < deadline:
                time.sleep(0.05)
            list(c.events(timeout=0.3))      # the loads' events, until quiet

            def change(remove, add):
                os.unlink(os.path.join(d.assets, remove))
                with open(os.path.join(d.assets, add), "w") as f:
                    f.write(PAGE_CAMERA)
                seen = set()
                deadline = time.monotonic() + TIMEOUT
                while seen != {("asset.removed", remove), ("asset.loaded", add)}:
                    ev = c.next_event(max(0.0, deadline - time.monotonic()))
                    seen.add((ev["type"], ev.get("asset")))
                want.discard(remove)
                want.add(add)

            got, sizes, cursor = [], [], None
            while True:
                page = c.assets_page(cursor, limit=1000)
                got += [a["asset"] for a in page["assets"]]
                sizes.append(len(page["assets"]))
                cursor = page["cursor"]
                if cursor is None:
                    break
                if len(sizes) == 1:
                    # Behind the cursor (listed already, and never), then
                    # ahead of it (not listed, and listed).
                    change("many/0500.md5camera", "many/0500b.md5camera")
                    want.discard("many/0500b.md5camera")
                    want.add("many/0500.md5camera")
                    change("many/1500.md5camera", "many/1500b.md5camera")
                elif len(sizes) == 2:
                    change("many/2400.md5camera", "many/2499z.md5camera")
            check(sizes == [1000, 1000, 506], "three pages of 1000, 1000, 506 (%r)" % sizes)
            check(got == sorted(set(got)) and set(got) == want,
                  "every name once, in order, those added ahead and not those removed ahead")
            now = sorted(want - {"many/0500.md5camera"} | {"many/0500b.md5camera"})
            check([a["asset"] for a in c.iter_assets(limit=7)] == now, "iter_assets pages it all")
            whole = c.assets()
            check([a["asset"] for a in whole] == now, "assets() is the whole list")
            check(c.call("assets.list")["assets"] == whole,
                  "the request without paging arguments gets the whole list too")
            # A reader that stops early (`| head -1`): the command line
            # ends quietly, its list cut short.
            r = subprocess.run("%s -m animd --socket %s list | head -1" % (sys.executable, d.sock),
                               shell=True, capture_output=True, text=True, timeout=60,
                               env=dict(os.environ, PYTHONPATH=PYDIR))
            check(r.stdout.startswith("ASSET ") and r.stdout.count("\n") == 1 and r.stderr == "",
                  "python3 -m animd list | head -1: one line, nothing on stderr (%r)"
                  % r.stderr[-300:])
            raises(ValueError, lambda: list(c.iter_assets(limit=0)), "iter_assets: limit 0")
            e = raises(animd.errors.BadRequest, lambda: c.assets_page(limit=10001),
                       "assets_page: limit over 10000")
            check(e is None or e.code == "bad_request", "bad_request for limit 10001")
    finally:
        stop_daemon(d)


# ---- 9. operators ------------------------------------------------------------

def _as_nobody(fn):
    """fn() in a child process run as uid and gid 65534 (no supplementary
    groups): its return value (a str) or the repr of what it raised."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            os.setgroups([])
            os.setresgid(65534, 65534, 65534)
            os.setresuid(65534, 65534, 65534)
            out = str(fn())
        except BaseException as e:          # noqa: BLE001  (reported to the parent)
            out = "%s: %s" % (type(e).__name__, e)
        os.write(w, out.encode("utf-8", "replace"))
        os._exit(0)
    os.close(w)
    chunks = []
    while True:
        b = os.read(r, 65536)
        if not b:
            break
        chunks.append(b)
    os.close(r)
    os.waitpid(pid, 0)
    return b"".join(chunks).decode()


def t_operators(d):
    with animd.Client(d.sock, name="walker-demo") as a, animd.Client(d.sock) as b:
        check(a.name == "walker-demo" and b.name == os.path.basename(sys.argv[0]),
              "a client's name: the given one, else the script's (%r, %r)" % (a.name, b.name))
        a.subscribe(["instance.stopped"])
        p = a.play(asset="walker.md5anim", mesh="walker.md5mesh")
        mine = {x["connection"]: x for x in b.clients()}
        ca = mine.get(a.server["connection"])
        check(ca is not None and ca["name"] == "walker-demo" and ca["pid"] == os.getpid() and
              ca["uid"] == os.getuid() and ca["gid"] == os.getgid() and ca["instances"] == 1 and
              not ca["self"] and mine[b.server["connection"]]["self"] and
              abs(ca["since"] - time.time()) < 60 and ca["memory_bytes"] > 0,
              "clients(): the other connection, its name, pid, uid and what it owns (%r)" % ca)
        check(b.clients_list() is not None and type(b.clients()) is list, "clients() is a list")
        e = raises(animd.BadRequest, lambda: b.hello(name="x" * 65), "a name over 64 bytes")
        with animd.Client(d.sock, name="\u00e9" * 40) as long_name:
            check(long_name.name == "\u00e9" * 32 and
                  long_name.server["connection"] in [x["connection"] for x in b.clients()],
                  "a long name is cut to 64 bytes on a character, and the daemon takes it")
        every = [x for x in b.instances(all=True) if x["instance"] == p["instance"]]
        check(len(every) == 1 and every[0]["connection"] == a.server["connection"] and
              every[0]["client"] == "walker-demo" and b.instances() == [],
              "instances(all=True): another connection's, with its owner (%r)" % every)
        e = raises(animd.NotFound, lambda: b.stop(p), "stop of another's instance without any")
        check(e is not None and "any" in e.message, "not_found says how an operator reaches it")
        st = b.pause(p, any=True)
        check(st["state"] == "paused" and a.instances()[0]["state"] == "paused",
              "pause(any=True): another connection's instance, paused")
        st = b.stop(p, any=True)
        check(st["state"] == "stopped" and a.instances() == [], "stop(any=True)")
        ev = a.next_event(TIMEOUT)
        check(ev["type"] == "instance.stopped" and ev["reason"] == "operator" and
              "connection %d" % b.server["connection"] in ev["message"],
              "the owner is told who stopped it (%r)" % ev)
        a.play(asset="idle.md5anim", mesh="walker.md5mesh")
        k = b.clients_kill(a.server["connection"], reason="runaway")
        check(k["connection"] == a.server["connection"] and k["name"] == "walker-demo" and
              k["instances"] == 1, "clients_kill: the connection and what it owned (%r)" % k)
        e = raises(animd.Disconnected, lambda: a.status(), "a killed connection")
        check(e is not None and "clients.kill" in str(e) and "runaway" in str(e),
              "the killed client says who closed it and why (%s)" % e)
        e = raises(animd.NotFound, lambda: b.clients_kill(a.server["connection"]),
                   "kill of a closed connection")
        e = raises(animd.BadRequest, lambda: b.clients_kill(b.server["connection"]),
                   "kill of this connection")
    # Another user's peer is refused: a socket anyone may reach, a
    # connection of root's to act on, one of uid 65534's own.
    os.chmod(d.dir, 0o755)
    os.chmod(os.path.dirname(d.sock), 0o755)
    os.chmod(d.sock, 0o666)
    try:
        with animd.Client(d.sock, name="root's") as a:
            p = a.play(asset="walker.md5anim")
            target = a.server["connection"]

            def refused():
                with animd.Client(d.sock) as n:
                    own = animd.Client(d.sock, name="nobody's other")
                    seen = [x["connection"] for x in n.clients()]
                    out = []
                    for fn in (lambda: n.clients_kill(target),
                               lambda: n.stop(p["instance"], any=True),
                               lambda: n.pause(p["instance"], any=True)):
                        try:
                            fn()
                            out.append("allowed")
                        except animd.PermissionDenied as e:
                            out.append("refused: " + e.message)
                    n.clients_kill(own.server["connection"])   # its own user's: allowed
                    out.append("own killed")
                    return "%s | %s" % (target in seen, " | ".join(out))

            got = _as_nobody(refused)
            check(got.startswith("True | refused: clients.kill: connection %d is uid 0's" % target)
                  and got.count("refused: ") == 3 and "control.operators = privileged" in got and
                  got.endswith("own killed"),
                  "uid 65534 sees root's connection but may not act on it, and may on its own "
                  "(%s)" % got)
            check(a.instances()[0]["state"] == "playing", "root's instance plays on")
    finally:
        os.chmod(d.sock, 0o660)
        os.chmod(os.path.dirname(d.sock), 0o700)
        os.chmod(d.dir, 0o700)


# ---- 10. connecting, dependencies, annotations --------------------------------

def t_connecting(d):
    e = raises(animd.NoSocket, lambda: animd.Client("/nonexistent/animd.sock"), "no socket")
    check(e is not None and isinstance(e, FileNotFoundError) and isinstance(e, ConnectionError)
          and "/nonexistent/animd.sock" in str(e) and "not running" in str(e),
          "NoSocket names the path and says animd is not running (%s)" % e)
    tmp = tempfile.mkdtemp(prefix="animd-stale-")
    try:
        stale = os.path.join(tmp, "stale.sock")
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(stale)                   # bound, never listening: refused
        s.close()
        e = raises(animd.StaleSocket, lambda: animd.Client(stale), "a stale socket")
        check(e is not None and isinstance(e, ConnectionRefusedError) and stale in str(e) and
              "no daemon answers" in str(e), "StaleSocket says the daemon is gone (%s)" % e)
    finally:
        shutil.rmtree(tmp)
    # No permission: the socket reachable, but its group's (root's, mode 0660).
    os.chmod(d.dir, 0o755)
    os.chmod(os.path.dirname(d.sock), 0o755)
    try:
        got = _as_nobody(lambda: animd.Client(d.sock))
    finally:
        os.chmod(os.path.dirname(d.sock), 0o700)
        os.chmod(d.dir, 0o700)
    check(got.startswith("NoPermission: cannot connect to %s: permission denied: the socket is "
                         "group root's (mode 0660): join that group" % d.sock) and
          "log in again" in got, "NoPermission names the group to join (%s)" % got)
    # numpy missing: the command line says which Python lacks it.
    r = subprocess.run([sys.executable, "-c", "import sys, runpy; sys.modules['numpy'] = None; "
                        "sys.argv = ['animd', 'status']; runpy.run_module('animd', "
                        "run_name='__main__', alter_sys=True)"],
                       capture_output=True, text=True, timeout=30,
                       env=dict(os.environ, PYTHONPATH=PYDIR, ANIMD_SOCKET=d.sock))
    check(r.returncode == 4 and sys.executable in r.stderr and "python3-numpy" in r.stderr and
          "Traceback" not in r.stderr,
          "without numpy: the interpreter and the package to install (%d %r)"
          % (r.returncode, r.stderr[-400:]))


def t_types(d):
    import inspect
    import typing
    from animd import results
    check(os.path.exists(os.path.join(PYDIR, "animd", "py.typed")), "the package ships py.typed")
    missing = []
    for name, fn in inspect.getmembers(animd.Client, inspect.isfunction):
        if name.startswith("_") and name not in ("__init__", "__enter__"):
            continue
        hints = typing.get_type_hints(fn)
        params = [k for k in inspect.signature(fn).parameters if k not in ("self", "args")]
        if "return" not in hints or any(k not in hints for k in params):
            missing.append(name)
    check(missing == [], "every public method of Client is annotated (not: %r)" % missing)
    check(typing.get_type_hints(animd.Client.clients)["return"] == typing.List[results.ClientInfo]
          and typing.get_type_hints(animd.Client.assets)["return"] ==
          typing.List[results.AssetSummary], "clients() and assets() return typed lists")
    check("at_ns" in inspect.signature(animd.Client.play).parameters,
          "play's at_ns, as animc_play_opts.at_ns")
    mypy = subprocess.run([sys.executable, "-m", "mypy", "--version"], capture_output=True)
    if mypy.returncode != 0:
        print("(mypy is not installed for %s: make deps installs Debian's)" % sys.executable)
        return
    r = subprocess.run([sys.executable, "-m", "mypy", "--config-file", "pyproject.toml",
                        "--no-incremental", "animd"], cwd=PYDIR, capture_output=True,
                       text=True, timeout=300)
    check(r.returncode == 0, "mypy finds the package's annotations sound:\n%s" % r.stdout[-2000:])


# ---- 11. a restart on a large tree -------------------------------------------

def t_restart_large_tree():
    """A client that comes back the moment a restarted daemon accepts, on a
    tree of 2,000 assets, plays what it played before at the first try: the
    daemon loads what a request names first and answers when it is loaded
    (PROTOCOL.md section 2), so no retry loop is needed."""
    d = Daemon("animd-pybig-")
    try:
        big = os.path.join(d.assets, "big")
        manifest = big + ".manifest"
        subprocess.run([os.path.join(BUILD, "gen", "gen_tree"), big, "2000", "--manifest",
                        manifest], check=True, stdout=subprocess.DEVNULL)
        with open(manifest) as f:
            listed = [line.split() for line in f]
        anims = [a[1:] for a in listed if a[0] == "md5anim"]
        count = len(listed) + len(DEMO)
        # The tree's last characters: the background reaches them last.
        wanted = [{"asset": "big/" + a, "mesh": "big/" + m} for a, m in anims[-8:]]
        with animd.Client(d.sock) as c:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                st = c.status()["assets"]
                if st["count"] == count and st["states"]["loading"] == 0:
                    break
                time.sleep(0.05)
            before = [c.sample(time=0.25, space="model", **w) for w in wanted]
        d.restart()
        deadline = time.monotonic() + TIMEOUT
        while True:
            try:
                c = animd.Client(d.sock)
                break
            except (OSError, animd.Disconnected):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.005)
        with c:
            played = []
            for w in wanted:
                try:
                    played.append(c.play(**w))
                except animd.Error as e:
                    check(False, "play %s at the first try: %s" % (w["asset"], e))
            check(len(played) == len(wanted), "every play answered at the first try")
            after = [c.sample(time=0.25, space="model", **w) for w in wanted]
            check([s["joints"] for s in after] == [s["joints"] for s in before],
                  "the same poses as before the restart")
            st = c.status()["assets"]
            check(st["count"] == count, "every name known (%d of %d)" % (st["count"], count))
    finally:
        stop_daemon(d)


# ---- 12. a glTF's morph weights ----------------------------------------------

def morph_gltf():
    """A triangle with two morph targets ("up", "side") whose weights a
    LINEAR clip takes from (0, 0) at 0 s to (1, 0.5) at 1 s: one buffer in a
    data: URI."""
    import base64
    floats = [0, 0, 0, 1, 0, 0, 0, 1, 0,        # the triangle
              0, 1, 0, 0, 1, 0, 0, 1, 0,        # target "up": +1 in y
              2, 0, 0, 2, 0, 0, 2, 0, 0,        # target "side": +2 in x
              0, 1,                             # key times
              0, 0, 1, 0.5]                     # the weights at those times
    data = struct.pack("<%df" % len(floats), *floats)
    view = lambda off, n: {"buffer": 0, "byteOffset": off, "byteLength": n}  # noqa: E731
    vec3 = lambda v, mn, mx: {"bufferView": v, "componentType": 5126, "count": 3,  # noqa: E731
                              "type": "VEC3", "min": mn, "max": mx}
    doc = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
           "nodes": [{"name": "blob", "mesh": 0}],
           "meshes": [{"primitives": [{"attributes": {"POSITION": 0},
                                       "targets": [{"POSITION": 1}, {"POSITION": 2}]}],
                       "extras": {"targetNames": ["up", "side"]}}],
           "animations": [{"name": "swell", "channels": [{"sampler": 0,
                                                          "target": {"node": 0, "path": "weights"}}],
                           "samplers": [{"input": 3, "output": 4, "interpolation": "LINEAR"}]}],
           "accessors": [vec3(0, [0, 0, 0], [1, 1, 0]), vec3(1, [0, 1, 0], [0, 1, 0]),
                         vec3(2, [2, 0, 0], [2, 0, 0]),
                         {"bufferView": 3, "componentType": 5126, "count": 2, "type": "SCALAR",
                          "min": [0], "max": [1]},
                         {"bufferView": 4, "componentType": 5126, "count": 4, "type": "SCALAR"}],
           "bufferViews": [view(0, 36), view(36, 36), view(72, 36), view(108, 8), view(116, 16)],
           "buffers": [{"byteLength": len(data), "uri": "data:application/octet-stream;base64," +
                        base64.b64encode(data).decode()}]}
    return json.dumps(doc)


def t_weights():
    """A glTF's morph weights: assets.info names them, sample's weights
    space and a weights stream carry them, vertices are morphed by them."""
    d = Daemon("animd-pyweights-")
    try:
        with animd.Client(d.sock) as c:
            c.subscribe(["asset.loaded"])
            with open(os.path.join(d.assets, "blob.gltf"), "w") as f:
                f.write(morph_gltf())
            deadline = time.monotonic() + TIMEOUT
            while time.monotonic() < deadline:
                ev = c.next_event(max(0.0, deadline - time.monotonic()))
                if ev.get("type") == "asset.loaded" and ev.get("asset") == "blob.gltf":
                    break
            info = c.info(asset="blob.gltf")
            check([w["name"] for w in info.get("weights", [])] == ["blob/up", "blob/side"] and
                  info["clips"][0]["name"] == "swell", "info: the weights' names (%r)" % info.get("weights"))
            s = c.sample(asset="blob.gltf", time=0.5, space="weights")
            check(animd.SPACES[7] == "weights" and s.space == "weights" and
                  s.weights.tolist() == [0.5, 0.25] and
                  [w["weight"] for w in s["weights"]] == [0.5, 0.25],
                  "sample weights at 0.5 s: (0.5, 0.25) (%r)" % s.get("weights"))
            v = c.sample(asset="blob.gltf", time=0.5, space="vertices")
            check(np.allclose(v.vertices, [[0.5, 0.5, 0], [1.5, 0.5, 0], [0.5, 1.5, 0]]),
                  "sample vertices: the triangle morphed by the weights (%r)" % v.vertices.tolist())
            raises(animd.Unsupported, lambda: c.sample(asset="blob.gltf", time=0.5, space="emitters"),
                   "sample emitters of a glTF")
            st = c.stream_open(space="weights", rate=0, joints=8)
            i = c.play(stream=st, asset="blob.gltf")
            c.pause(instance=i)
            c.seek(instance=i, time=0.75)
            p = st.latest(i)
            check(st.space == "weights" and p.weights.shape == (2,) and
                  np.array_equal(p.weights, c.sample(asset="blob.gltf", time=0.75,
                                                     space="weights").weights) and
                  p.weights.tolist() == [0.75, 0.375], "a weights stream: sample's weights")
            st.close()
            c.stop(instance=i)
    finally:
        stop_daemon(d)


def main():
    print("== a restart on a large tree", flush=True)
    t_restart_large_tree()
    print("== the reader on regions written here")
    t_reader()
    print("== assets.list paged", flush=True)
    t_paging()
    print("== a glTF's morph weights", flush=True)
    t_weights()
    d = Daemon("animd-pypkg-")
    try:
        for name, part in (("every method", t_methods), ("errors", t_errors),
                           ("events", t_events), ("clip events", t_clip_events),
                           ("names that are not text", t_unservable),
                           ("timeouts", t_timeouts),
                           ("the context manager", t_context),
                           ("against libanimclient", lambda d: (
                               t_against_c(d, instances=4, poses=1000, depth=64),
                               t_against_c(d, instances=16, poses=400, depth=2))),
                           ("pictures", t_draw), ("docs/clients.md's example", t_readme),
                           ("operators", t_operators), ("connecting", t_connecting),
                           ("annotations", t_types),
                           ("server.stopping", t_stopping)):
            print("== " + name, flush=True)
            part(d)
    finally:
        stop_daemon(d)
    if failures:
        print("%d checks failed" % len(failures))
        return 1
    print("python package: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
