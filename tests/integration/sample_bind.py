"""sample's bind pose and skin weights (PROTOCOL.md `sample`: `bind`,
`skin_weights`) against the real daemon on the demo assets:

1. the bind pose of every skinned demo asset (walker.md5mesh and the
   md5anims bound to it, crane.x, lantern.m2): `bind: true` with `clip` nil,
   `clip_time` 0, `skin` the identity, and an md5mesh's the pose it gives
   without a clip (its joints as written);
2. the weights: one count per vertex, joints in the skeleton, values as the
   file gives them (an M2's bytes / 255 sum to 1 per vertex); and with the
   bind pose they skin: at several times of every clip, linear-blend
   skinning with normalised weights of the bind vertices through
   model(t) * bind^-1 lands on the daemon's own `vertices` (what a game
   engine or Blender's armature does with them);
3. the same numbers from `animd sample --bind --skin-weights --json` as from
   the socket;
4. with the shared test data (skipped without it): the same skinning for
   real files through `animd sample` (DirectX SDK's tiny.x, whose skin
   offsets are not its frames' inverses: the bind pose is where its mesh
   was bound; MGL's bob.md5mesh with its anim);
5. what is refused: `bind` with a time, clip, loop, root motion or layers;
   neither a time nor `bind`; `skin_weights` outside the vertices space; the bind
   pose of an md5anim without a mesh, of a camera, in the emitters space.

Exit 0 pass, 1 fail, 77 skipped (python3-msgpack or numpy missing).
"""
import json
import os
import subprocess
import sys

try:
    import msgpack  # noqa: F401  (animd needs it)
    import numpy as np
except ImportError as e:
    print("SKIP: %s (make deps installs python3-msgpack and python3-numpy)" % e)
    sys.exit(77)

SRC = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SRC, "client", "python"))
import animd                            # noqa: E402  (the tree's, never an installed one)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemon_fixture import ANIMD, Daemon  # noqa: E402

# (asset, mesh, clips): every skinned pose the demo holds.
SKINNED = [("walker.md5mesh", None, [("walker.md5anim", None), ("idle.md5anim", None)]),
           ("crane.x", None, [("crane.x", "swing")]),
           ("lantern.m2", None, [("lantern.m2", "0"), ("lantern.m2", "2")])]

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("not ok:", what)
    return cond


def mat4(m34):
    m = np.eye(4)
    m[:3, :] = np.asarray(m34, dtype=np.float64).reshape(3, 4)
    return m


def size_of(points):
    p = np.asarray(points, dtype=np.float64)
    return float(np.abs(p.max(axis=0) - p.min(axis=0)).max()) or 1.0


def skin_lbs(bind_mats, verts, weights, mats):
    """Linear-blend skinning, weights normalised: sum (w / W) M B^-1 p."""
    skin = [mat4(m) @ np.linalg.inv(mat4(b)) for m, b in zip(mats, bind_mats)]
    out, k = [], 0
    for v, n in enumerate(weights["counts"]):
        js, ws = weights["joints"][k:k + n], weights["values"][k:k + n]
        k += n
        p = np.append(np.asarray(verts[v], dtype=np.float64), 1.0)
        total = sum(ws)
        out.append(sum((w / total) * (skin[j] @ p)[:3] for j, w in zip(js, ws)))
    return np.array(out)


def t_bind(c):
    for asset, _mesh, clips in SKINNED:
        b = c.sample(asset=asset, bind=True)
        check(b.get("bind") is True and b["clip"] is None and b["clip_time"] == 0 and
              b["space"] == "model", "%s: bind is true, no clip, clip_time 0 (%r)"
              % (asset, {k: b.get(k) for k in ("bind", "clip", "clip_time", "space")}))
        sk = c.sample(asset=asset, bind=True, space="skin")
        eye = np.tile(np.eye(3, 4), (len(sk.joints), 1, 1))
        check(np.allclose(sk.joints, eye, atol=1e-5),
              "%s: skin in the bind pose is the identity" % asset)
        v = c.sample(asset=asset, bind=True, space="vertices", skin_weights=True)
        bind_mats = b.joints
        n = len(b.joints)
        for m in v["meshes"]:
            w = m["skin_weights"]
            check(len(w["counts"]) == len(m["positions"]) and
                  sum(w["counts"]) == len(w["joints"]) == len(w["values"]),
                  "%s mesh %s: a count per vertex, as many joints as values" % (asset, m["name"]))
            check(all(1 <= k for k in w["counts"]) and all(0 <= j < n for j in w["joints"]),
                  "%s mesh %s: every vertex weighed, every joint in the skeleton"
                  % (asset, m["name"]))
            if asset.endswith(".m2"):
                sums, k = [], 0
                for cnt in w["counts"]:
                    sums.append(sum(w["values"][k:k + cnt]))
                    k += cnt
                check(np.allclose(sums, 1.0, atol=1e-6), "%s: M2 weights (bytes / 255) sum to 1"
                      % asset)
            # Skinned by a linear-blend skinner at the clips' times.
            for clip_asset, clip in clips:
                mesh_arg = asset if clip_asset != asset else None
                info = c.info(asset=clip_asset)
                dur = next(k["duration"] for k in info["clips"]
                           if clip is None or k["name"] == clip)
                for t in (0.0, dur * 0.37, dur * 0.81):
                    pose = c.sample(asset=clip_asset, clip=clip, mesh=mesh_arg, time=t)
                    want = c.sample(asset=clip_asset, clip=clip, mesh=mesh_arg, time=t,
                                    space="vertices")
                    got = skin_lbs(bind_mats, m["positions"], w, pose.joints)
                    ref = next(x for x in want["meshes"] if x["name"] == m["name"])["positions"]
                    err = float(np.abs(got - np.asarray(ref)).max())
                    check(err <= 1e-5 * size_of(ref),
                          "%s#%s t=%.3f mesh %s: bind pose and weights skin to the daemon's "
                          "vertices (off by %.3g)" % (clip_asset, clip, t, m["name"], err))
    # An md5mesh's bind pose is what it gives without a clip; the anims
    # bound to it give the mesh's.
    plain = c.sample(asset="walker.md5mesh", time=0)
    bound = c.sample(asset="walker.md5anim", mesh="walker.md5mesh", bind=True)
    check(np.array_equal(plain.joints, c.sample(asset="walker.md5mesh", bind=True).joints) and
          np.array_equal(plain.joints, bound.joints),
          "walker: the md5mesh's joints are its bind pose, for the anim bound to it too")
    # .x: the frames' matrices as written, whatever time of a clip.
    x_bind = c.sample(asset="crane.x", bind=True)
    x_mid = c.sample(asset="crane.x", time=0.5)
    check(not np.allclose(x_bind.joints, x_mid.joints),
          "crane.x: the bind pose is not the swing's pose at 0.5 s")


def t_offline(d, c):
    for asset in ("walker.md5mesh", "crane.x", "lantern.m2"):
        path = os.path.join(d.assets, asset)
        out = subprocess.run([ANIMD, "sample", path, "--bind", "--space", "vertices",
                              "--skin-weights", "--json"], capture_output=True, text=True)
        if not check(out.returncode == 0, "animd sample %s --bind --skin-weights: exit %d: %s"
                     % (asset, out.returncode, out.stderr.strip())):
            continue
        cli = json.loads(out.stdout)
        sock = c.sample(asset=asset, bind=True, space="vertices", skin_weights=True)
        same = all(a["skin_weights"]["counts"] == b["skin_weights"]["counts"] and
                   a["skin_weights"]["joints"] == b["skin_weights"]["joints"] and
                   np.allclose(a["skin_weights"]["values"], b["skin_weights"]["values"], rtol=1e-7) and
                   np.allclose(a["positions"], b["positions"], rtol=1e-6, atol=1e-6)
                   for a, b in zip(cli["meshes"], sock["meshes"]))
        check(cli.get("bind") is True and len(cli["meshes"]) == len(sock["meshes"]) and same,
              "%s: animd sample --bind --skin-weights --json gives the socket's numbers" % asset)
    bad = subprocess.run([ANIMD, "sample", os.path.join(d.assets, "crane.x"), "--bind",
                          "--time", "1"], capture_output=True, text=True)
    check(bad.returncode == 2, "animd sample --bind --time: a usage error (exit %d)"
          % bad.returncode)


def offline(*args):
    out = subprocess.run([ANIMD, "sample"] + list(args) + ["--json"], capture_output=True,
                         text=True)
    if out.returncode != 0:
        raise RuntimeError("animd sample %s: %s" % (" ".join(args), out.stderr.strip()))
    return json.loads(out.stdout)


def t_testdata():
    data = os.environ.get("ANIMD_TESTDATA") or os.path.join(SRC, "..", "shared", "testdata")
    if not os.path.isdir(data):
        print("skip part: shared test data not found at %s (set ANIMD_TESTDATA)" % data)
        return
    for path, mesh, times in ((os.path.join(data, "x", "dxsdk", "tiny.x"), None, (0.5, 2.2)),
                              (os.path.join(data, "md5", "mgl", "bob.md5anim"),
                               os.path.join(data, "md5", "mgl", "bob.md5mesh"), (0.3, 1.1))):
        if not os.path.exists(path):
            print("skip part: %s is missing" % path)
            continue
        skel = mesh or path
        bind = offline(skel, "--bind")
        verts = offline(skel, "--bind", "--space", "vertices", "--skin-weights")
        mats = [j["m"] for j in bind["joints"]]
        for t in times:
            extra = ["--mesh", mesh] if mesh else []
            pose = offline(path, "--time", str(t), *extra)
            want = offline(path, "--time", str(t), "--space", "vertices", *extra)
            for m, ref in zip(verts["meshes"], want["meshes"]):
                got = skin_lbs(mats, m["positions"], m["skin_weights"],
                               [j["m"] for j in pose["joints"]])
                err = float(np.abs(got - np.asarray(ref["positions"])).max())
                check(err <= 1e-5 * size_of(ref["positions"]),
                      "%s t=%g mesh %s: bind pose and weights skin to the daemon's vertices "
                      "(off by %.3g)" % (os.path.basename(path), t, m["name"], err))


def t_refused(c):
    def code_of(**kw):
        try:
            c.call("sample", **kw)
        except animd.Error as e:
            return e.code, e.message
        return None, None

    for kw in ({"time": 1.0}, {"clip": "swing"}, {"loop": "once"}, {"root_motion": "raw"},
               {"layers": [{"clip": "swing", "time": 0.5}]}):
        code, msg = code_of(asset="crane.x", bind=True, **kw)
        check(code == "bad_request" and "bind" in msg, "bind with %s: bad_request (%s: %s)"
              % (list(kw)[0], code, msg))
    code, msg = code_of(asset="crane.x")
    check(code == "bad_request" and '"time"' in msg, "neither time nor bind: bad_request "
          "naming time (%s: %s)" % (code, msg))
    code, msg = code_of(asset="crane.x", time=0, skin_weights=True)
    check(code == "bad_request" and "weights" in msg, "weights in model space: bad_request "
          "(%s: %s)" % (code, msg))
    for kw, what in (({"asset": "walker.md5anim"}, "an md5anim without a mesh"),
                     ({"asset": "orbit.md5camera"}, "a camera"),
                     ({"asset": "lantern.m2", "space": "emitters"}, "the emitters space")):
        code, msg = code_of(bind=True, **kw)
        check(code == "unsupported", "bind of %s: unsupported (%s: %s)" % (what, code, msg))
    # The connection is still good, and a plain sample unchanged.
    s = c.sample(asset="crane.x", time=0.5)
    check("bind" not in s and s["clip"] == "swing", "a sample without bind has no bind field")


def main():
    d = Daemon(prefix="animd-bind-")
    try:
        with animd.Client(d.sock) as c:
            t_bind(c)
            t_offline(d, c)
            t_refused(c)
        t_testdata()
    finally:
        rc, log = d.stop()
        check(rc == 0, "the daemon exits 0 on SIGTERM (got %s)" % rc)
        if failures:
            print("daemon log:\n" + log)
    print("sample_bind.py: %d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
