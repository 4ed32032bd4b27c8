"""The Blender add-on's arithmetic (client/blender/animd_link/rig.py, numpy
only), with Debian's python3 and no Blender: what test_blender.sh checks
through Blender, here property by property, so that it is tested where
Blender is not installed too.

1. the axes: each conversion orthogonal, a rotation for right-handed
   files and a mirror for left-handed ones, the file's up on Blender's +Z
   and the side a Y-up file shows its viewer on Blender's front (-Y);
2. C M C^-1 keeps a joint's matrix proper under a mirror and carries a
   point in the joint's space with it: M' (C p) = C (M p);
3. bone names: unique, at most 63 bytes of UTF-8 cut on a character,
   "joint N" for an unnamed joint;
4. rest frames: proper rotations at the joints, Y towards the only child,
   a leaf along its parent;
5. matrix_basis: posed the way Blender poses bones (P = P_parent
   L_parent^-1 L basis), the bases give back every target, for a bind pose
   with uniform scale too; split into location, quaternion and scale and
   put back together they are the same matrices (nothing a pose bone
   cannot hold);
6. quaternions of rotations, and their signs kept continuous;
7. the skeleton's own bind from the bind pose's model and skin matrices,
   and a skin helper's basis: any X, reflections included, is a rotation
   times a scale in the helper's axes.

Exit 0 pass, 1 fail, 77 skipped (numpy missing).
"""
import importlib.util
import os
import sys

try:
    import numpy as np
except ImportError as e:
    print("SKIP: %s (make deps installs python3-numpy)" % e)
    sys.exit(77)

SRC = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
spec = importlib.util.spec_from_file_location(
    "rig", os.path.join(SRC, "client", "blender", "animd_link", "rig.py"))
rig = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rig)

failures = []
rng = np.random.default_rng(36)


def check(cond, what):
    if not cond:
        failures.append(what)
        print("not ok:", what)


def rotation():
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    w, x, y, z = q
    return np.array(((1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)),
                     (2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)),
                     (2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y))))


def affine(r, t, s=(1, 1, 1)):
    m = np.eye(4)
    m[:3, :3] = r @ np.diag(s)
    m[:3, 3] = t
    return m


def compose(loc, q, scale):
    w, x, y, z = q
    r = np.array(((1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)),
                  (2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)),
                  (2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y))))
    return affine(r, loc, scale)


def t_axes():
    for (up, hand), det in ((("z_up", "right"), 1), (("y_up", "right"), 1),
                            (("y_up", "left"), -1), (("z_up", "left"), -1)):
        c = rig.axes_matrix(up, hand)
        check(np.allclose(c @ c.T, np.eye(3)) and round(np.linalg.det(c)) == det,
              "%s %s: orthogonal, det %d" % (up, hand, det))
        up_vec = (0, 0, 1) if up == "z_up" else (0, 1, 0)
        check(np.allclose(c @ up_vec, (0, 0, 1)), "%s %s: up is Blender's +Z" % (up, hand))
    # The side a Y-up file faces its viewer: +Z right-handed (glTF), -Z
    # left-handed (Direct3D); both Blender's front, -Y.
    check(np.allclose(rig.axes_matrix("y_up", "right") @ (0, 0, 1), (0, -1, 0)) and
          np.allclose(rig.axes_matrix("y_up", "left") @ (0, 0, -1), (0, -1, 0)),
          "a Y-up file's viewer side is Blender's front (-Y)")
    try:
        rig.axes_matrix("x_up", "right")
        check(False, "unknown axes are refused")
    except ValueError:
        pass


def t_convert():
    c = rig.axes_matrix("y_up", "left")
    for _ in range(20):
        m = affine(rotation(), rng.normal(size=3) * 10, rng.uniform(0.5, 2, 3))
        p = rng.normal(size=3)
        m2 = rig.convert(m[:3].reshape(1, 12), c)[0]
        check(np.isclose(np.linalg.det(m2[:3, :3]), np.linalg.det(m[:3, :3])),
              "a mirror keeps the joint matrix's determinant")
        check(np.allclose(m2[:3, :3] @ (c @ p) + m2[:3, 3], c @ (m[:3, :3] @ p + m[:3, 3])),
              "M' (C p) = C (M p)")
    pts = rng.normal(size=(5, 3))
    check(np.allclose(rig.convert_points(pts, c), pts @ c.T), "points convert by C")


def t_names():
    long = "é" * 40                     # 80 bytes
    names = rig.bone_names(["a", "a", "", long, long, "b#1", "b", "b"])
    check(len(set(names)) == len(names), "bone names are unique (%r)" % names)
    check(all(len(n.encode("utf-8")) <= 63 for n in names), "at most 63 bytes each")
    check(names[0] == "a" and names[1] == "a#1" and names[2] == "joint 2",
          "a repeat gets #N, an unnamed joint \"joint N\" (%r)" % names[:3])
    check(names[3] == "é" * 31 and names[4].startswith("é") and names[4].endswith("#1"),
          "long names cut on a character (%r)" % names[3:5])


def chain(n=6, scale=1.0):
    """A random skeleton: parents (a branch at joint 1), TRS locals, bind."""
    parents = [-1, 0, 1, 2, 1, 4][:n]
    local = [affine(rotation(), rng.normal(size=3) * 3 + (0, 2, 0)) for _ in range(n)]
    bind = []
    for j, p in enumerate(parents):
        bind.append((bind[p] if p >= 0 else affine(np.eye(3), (0, 0, 0), (scale,) * 3)) @
                    local[j])
    return parents, np.array(bind)


def t_rest():
    parents, bind = chain()
    rest, lengths = rig.rest_frames(bind, parents, 10.0)
    check(all(np.isclose(np.linalg.det(r[:3, :3]), 1) and np.allclose(r[:3, :3].T @ r[:3, :3],
                                                                      np.eye(3))
              for r in rest), "rest frames are proper rotations")
    check(np.allclose(rest[:, :3, 3], bind[:, :3, 3]), "heads at the joints")
    to_child = bind[3, :3, 3] - bind[2, :3, 3]
    check(np.allclose(rest[2, :3, 1], to_child / np.linalg.norm(to_child)) and
          np.isclose(lengths[2], np.linalg.norm(to_child)), "Y towards the only child")
    check(np.allclose(rest[3, :3, 1], rest[2, :3, 1]), "a leaf along its parent")


def blender_pose(rest, parents, bases):
    """What Blender makes of bases with full inheritance."""
    out = np.empty_like(bases)
    for j, p in enumerate(parents):
        out[j] = (out[p] @ np.linalg.inv(rest[p]) if p >= 0 else np.eye(4)) @ rest[j] @ bases[j]
    return out


def t_basis():
    for scale in (1.0, 2.5):
        parents, bind = chain(scale=scale)
        rest, _ = rig.rest_frames(bind, parents, 10.0)
        k = rig.corrections(bind, rest)
        par = np.array(parents)
        for _ in range(5):
            _, model = chain(scale=scale)
            t = rig.targets(model, k, np.arange(len(parents)), par, rest)
            b = rig.basis(t, rest, par)
            check(np.allclose(blender_pose(rest, parents, b), t),
                  "bases pose Blender's bones on their targets (bind scale %g)" % scale)
            loc, q, s = rig.decompose(b)
            back = np.array([compose(*x) for x in zip(loc, q, s)])
            check(np.allclose(back, b), "every basis is a location, rotation and scale "
                  "(bind scale %g)" % scale)
            check(np.allclose(t @ np.linalg.inv(k), model), "pose K^-1 gives the joints back")
    # A bone whose joint is gone keeps its rest relative to its parent.
    parents, bind = chain()
    rest, _ = rig.rest_frames(bind, parents, 10.0)
    k = rig.corrections(bind, rest)
    _, model = chain()
    bj = np.array([0, 1, 2, -1, 4, 5])
    b = rig.basis(rig.targets(model, k, bj, np.array(parents), rest), rest, np.array(parents))
    check(np.allclose(b[3], np.eye(4)), "a bone without a joint keeps its rest pose")


def t_quaternions():
    r = np.array([rotation() for _ in range(50)])
    q = rig.quaternions(r)
    back = np.array([compose((0, 0, 0), x, (1, 1, 1))[:3, :3] for x in q])
    check(np.allclose(back, r) and (q[:, 0] >= 0).all(), "quaternions of rotations, w >= 0")
    flipped = rig.continuous(-q, q)
    check(np.allclose(flipped, q), "signs kept next to the key before")


def t_helpers():
    b_frames = np.array([affine(rotation(), rng.normal(size=3)) for _ in range(4)])
    b_skin = np.array([affine(rotation(), rng.normal(size=3), rng.uniform(0.5, 1.5, 3))
                       for _ in range(4)])
    skin = b_skin @ np.linalg.inv(b_frames)
    check(np.allclose(rig.frames_bind(b_skin, skin), b_frames),
          "the skeleton's bind from the bind pose's model and skin matrices")
    for det_sign in (1, -1):
        x = affine(rotation(), rng.normal(size=3), rng.uniform(0.5, 1.5, 3) * (1, 1, det_sign))
        x[:3, :3] = x[:3, :3] @ rotation()          # any stretch, in any axes
        v = rig.skin_helper(x)
        frame = affine(v, rng.normal(size=3))
        basis = np.linalg.inv(frame) @ x @ frame
        loc, q, s = rig.decompose(basis[None])
        check(np.isclose(np.linalg.det(v), 1) and
              np.allclose(compose(loc[0], q[0], s[0]), basis),
              "a skin helper's basis is a rotation times a scale (det %+d)" % det_sign)


t_axes()
t_convert()
t_names()
t_rest()
t_basis()
t_quaternions()
t_helpers()
print("blender_rig.py: %d failed" % len(failures))
sys.exit(1 if failures else 0)
