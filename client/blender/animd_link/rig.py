"""The arithmetic of the link, numpy only (no bpy): the one conversion from
a format's axes to Blender's, bone rest frames from a bind pose, and the
pose bones' ``matrix_basis`` from the daemon's model matrices.

Conventions.  animd sends column-vector 3x4 matrices, row-major, in the
file's own axes (``assets.info``'s ``axes``).  Here they become 4x4
matrices (numpy arrays of shape (n, 4, 4)) in Blender's armature space,
Z up and right-handed:

    M' = C M C^-1

where ``C`` (:func:`axes_matrix`) maps a point of the file to Blender:

    z_up, right   (MD5, M2)     identity
    y_up, right   (glTF)        (x, y, z) -> (x, -z, y), +90 degrees about X
    y_up, left    (.x)          (x, y, z) -> (x, z, y), swap Y and Z: a mirror
    z_up, left                  (x, y, z) -> (x, -y, z), a mirror

In every case the side a file's viewer faces ends up facing Blender's front
view (-Y).  A mirror reverses handedness; conjugating by it (rather than
multiplying on one side) mirrors each joint's own axes too, so M' keeps the
determinant of M: a rotation stays a proper rotation, which Blender's bones
need, and a point given in a joint's space (a vertex, an attachment) is
mirrored with it, so ``M' (C p) = C (M p)``.

Skin helpers.  Blender's armature skins a mesh with pose L^-1 per bone, so
a bone's rest is where the mesh was bound.  A .x file's skin offsets may
bind a mesh elsewhere than its frames (tiny.x: with the body frame's
uneven scale), and a rest there would leave shear in the bones' poses, which
a pose bone cannot hold.  So bones rest at the frames' bind pose (the
joints stay exact), and such a joint gets a helper bone, its child, that
carries the vertex group: its constant matrix_basis, X = B_frames B_skin^-1
in its own axes (skin_helper), makes it deform by M' B_skin^-1, exactly as
the daemon skins.

Bones.  A Blender bone's rest matrix ``L`` (``bone.matrix_local``) is a
rotation and a head, with the bone along its Y axis to its tail.  A joint's
bind matrix ``B'`` (converted) may point anywhere and carry scale, so each
bone keeps a constant correction ``K = B'^-1 L``: the bone's armature-space
pose matrix is ``M' K``, and ``M' = pose_bone.matrix K^-1`` gives the joint's
matrix back.  ``L`` is ``B'``'s rotation (scale removed), turned by the
smallest rotation that points Y at the joint's child (the mean of its
children, or its parent's direction for a leaf), so the armature looks like
one drawn in Blender.

With full inheritance (Blender's default) a bone's pose matrix is
``P_parent L_parent^-1 L basis``, so ``basis = L^-1 L_parent P_parent^-1 P``.
"""
import numpy as np

# Blender refuses longer bone and vertex-group names (bytes of UTF-8).
NAME_BYTES = 63

_AXES = {
    ("z_up", "right"): ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
    ("y_up", "right"): ((1, 0, 0), (0, 0, -1), (0, 1, 0)),
    ("y_up", "left"): ((1, 0, 0), (0, 0, 1), (0, 1, 0)),
    ("z_up", "left"): ((1, 0, 0), (0, -1, 0), (0, 0, 1)),
}


def axes_matrix(up, handedness):
    """C (3, 3): a point of a file with these axes, in Blender's.  ValueError
    for axes animd does not declare."""
    try:
        return np.array(_AXES[(up, handedness)], dtype=np.float64)
    except KeyError:
        raise ValueError("unknown axes %r, %r (animd declares z_up or y_up, right or left)"
                         % (up, handedness)) from None


def to4(m34):
    """(n, 3, 4) or (n, 12) row-major matrices as (n, 4, 4), float64."""
    m = np.asarray(m34, dtype=np.float64).reshape(-1, 3, 4)
    out = np.zeros((len(m), 4, 4))
    out[:, :3, :] = m
    out[:, 3, 3] = 1.0
    return out


def convert(m34, c):
    """The daemon's model matrices (n, 3, 4) in Blender's axes (n, 4, 4):
    C M C^-1 (C is orthogonal: its inverse is its transpose)."""
    m = to4(m34)
    c4 = np.eye(4)
    c4[:3, :3] = c
    return c4 @ m @ c4.T


def convert_points(p, c):
    """Points (n, 3) of the file in Blender's axes."""
    return np.asarray(p, dtype=np.float64).reshape(-1, 3) @ c.T


def bone_names(joint_names):
    """A Blender bone name per joint: the joint's name cut to 63 bytes of
    UTF-8, "joint N" when it has none, and made unique by a "#N" suffix
    (Blender names bones uniquely; two joints of one name are legal)."""
    out, taken = [], set()
    for i, name in enumerate(joint_names):
        base = name if name else "joint %d" % i
        base = base.encode("utf-8")[:NAME_BYTES].decode("utf-8", "ignore")
        cand, k = base, 1
        while cand in taken:
            suffix = "#%d" % k
            cand = base.encode("utf-8")[:NAME_BYTES - len(suffix)].decode("utf-8", "ignore")
            cand += suffix
            k += 1
        taken.add(cand)
        out.append(cand)
    return out


def orthonormal(m3):
    """The rotation nearest each (3, 3) matrix (polar decomposition); a
    collapsed one gives the identity."""
    out = np.empty_like(m3)
    for i, a in enumerate(m3):
        try:
            u, _, vt = np.linalg.svd(a)
        except np.linalg.LinAlgError:
            out[i] = np.eye(3)
            continue
        r = u @ vt
        if np.linalg.det(r) < 0:
            u[:, 2] = -u[:, 2]
            r = u @ vt
        out[i] = r
    return out


def _turn(a, b):
    """The smallest rotation (3, 3) taking unit vector a to unit vector b."""
    v = np.cross(a, b)
    cos = float(np.dot(a, b))
    if cos > 1 - 1e-12:
        return np.eye(3)
    if cos < -1 + 1e-12:
        # Half a turn about any axis across a.
        axis = np.cross(a, (1.0, 0.0, 0.0))
        if np.linalg.norm(axis) < 1e-6:
            axis = np.cross(a, (0.0, 1.0, 0.0))
        axis /= np.linalg.norm(axis)
        return 2 * np.outer(axis, axis) - np.eye(3)
    vx = np.array(((0, -v[2], v[1]), (v[2], 0, -v[0]), (-v[1], v[0], 0)))
    return np.eye(3) + vx + vx @ vx / (1 + cos)


def rest_frames(bind4, parents, size):
    """Bone rest matrices L (n, 4, 4) and lengths (n,) from the converted
    bind matrices: the head at the joint, Y towards its children (their
    mean; the parent's direction for a leaf or where the children sit on
    the joint), the bind rotation otherwise kept.  ``size`` is the model's
    extent, which gives leaves and roots without children their length."""
    n = len(bind4)
    heads = bind4[:, :3, 3]
    rots = orthonormal(bind4[:, :3, :3])
    children = [[] for _ in range(n)]
    for j, p in enumerate(parents):
        if 0 <= p < n:
            children[p].append(j)
    eps = max(size, 1e-6) * 1e-4
    default_len = max(size, 1e-3) * 0.05
    dirs = np.zeros((n, 3))
    lengths = np.full(n, default_len)
    for j in range(n):
        d = None
        if children[j]:
            to = heads[children[j]].mean(axis=0) - heads[j]
            if np.linalg.norm(to) > eps:
                d = to
                lengths[j] = float(np.linalg.norm(to))
        if d is None:
            p = parents[j]
            if 0 <= p < n and np.linalg.norm(dirs[p]) > 0:
                d = dirs[p]
                lengths[j] = lengths[p] * 0.5
            else:
                d = rots[j][:, 1]
        dirs[j] = d / np.linalg.norm(d)
    lengths = np.maximum(lengths, eps)
    out = np.zeros((n, 4, 4))
    for j in range(n):
        out[j, :3, :3] = _turn(rots[j][:, 1], dirs[j]) @ rots[j]
        out[j, :3, 3] = heads[j]
        out[j, 3, 3] = 1.0
    return out, lengths


def frames_bind(bind4, skin4):
    """The skeleton's own bind matrices (n, 4, 4) from the bind pose's model
    and skin matrices (skin = model x the inverse of them; both converted).
    They differ from where the meshes were bound only in .x files whose skin
    offsets are not their frames' inverses."""
    out = bind4.copy()
    for j in range(len(bind4)):
        try:
            out[j] = np.linalg.solve(skin4[j], bind4[j])
        except np.linalg.LinAlgError:
            pass
    return out


def skin_helper(x4):
    """For a joint whose mesh binding X = B_frames B_skin^-1 is not the
    identity: the rotation (3, 3) of a helper bone's rest, and its constant
    matrix_basis X in those axes (4, 4 without the head's translation).
    The rotation is the eigenvectors of X's stretch (its polar
    decomposition's symmetric factor), so that X in those axes is a
    rotation times a scale along them, which a pose bone can hold: no shear
    is lost.  A reflection goes into the scale of one axis."""
    a = x4[:3, :3]
    u, sig, vt = np.linalg.svd(a)
    v = vt.T
    if np.linalg.det(v) < 0:
        v[:, 2] = -v[:, 2]
    return v


def corrections(bind4, rest4):
    """K = B'^-1 L per bone: the pose matrix of a bone is M' K."""
    return np.linalg.inv(bind4) @ rest4


def targets(model4, kmat, bone_joint, bone_parent, rest4):
    """Every bone's armature-space pose matrix (n_bones, 4, 4): M' K for a
    bone whose joint the pose has, and for one it lacks (its joint is gone
    after a reload) its rest relative to its parent, carried along."""
    nb = len(bone_joint)
    out = np.empty((nb, 4, 4))
    have = (bone_joint >= 0) & (bone_joint < len(model4))
    out[have] = model4[bone_joint[have]] @ kmat[have]
    for b in np.nonzero(~have)[0]:
        p = bone_parent[b]
        if p >= 0:
            out[b] = out[p] @ np.linalg.inv(rest4[p]) @ rest4[b]
        else:
            out[b] = rest4[b]
    return out


def basis(pose4, rest4, bone_parent):
    """matrix_basis per bone from pose matrices P (armature space), for
    bones that inherit all of their parent (Blender's default):
    L^-1 L_parent P_parent^-1 P; L^-1 P for a root.  Parents come first."""
    parent_frame = np.repeat(np.eye(4)[None], len(pose4), axis=0)
    has = bone_parent >= 0
    idx = bone_parent[has]
    parent_frame[has] = rest4[idx] @ np.linalg.inv(pose4[idx])
    return np.linalg.inv(rest4) @ parent_frame @ pose4


def decompose(m4):
    """(location (n, 3), rotation quaternions (n, 4) w x y z, scale (n, 3))
    of affine matrices, as Blender splits matrix_basis (a shear is lost)."""
    loc = m4[:, :3, 3].copy()
    a = m4[:, :3, :3]
    scale = np.linalg.norm(a, axis=1)
    scale[scale == 0] = 1.0
    r = a / scale[:, None, :]
    neg = np.linalg.det(r) < 0
    scale[neg, 0] *= -1
    r[neg, :, 0] *= -1
    return loc, quaternions(r), scale


def quaternions(r):
    """Unit quaternions (n, 4) w x y z of rotation matrices (n, 3, 3),
    by the largest of the four (Shepperd), w >= 0."""
    n = len(r)
    q = np.empty((n, 4))
    tr = r[:, 0, 0] + r[:, 1, 1] + r[:, 2, 2]
    for i in range(n):
        m = r[i]
        if tr[i] > 0:
            s = 2.0 * np.sqrt(1.0 + tr[i])
            q[i] = (0.25 * s, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s,
                    (m[1, 0] - m[0, 1]) / s)
        elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
            s = 2.0 * np.sqrt(max(1.0 + m[0, 0] - m[1, 1] - m[2, 2], 1e-300))
            q[i] = ((m[2, 1] - m[1, 2]) / s, 0.25 * s, (m[0, 1] + m[1, 0]) / s,
                    (m[0, 2] + m[2, 0]) / s)
        elif m[1, 1] > m[2, 2]:
            s = 2.0 * np.sqrt(max(1.0 + m[1, 1] - m[0, 0] - m[2, 2], 1e-300))
            q[i] = ((m[0, 2] - m[2, 0]) / s, (m[0, 1] + m[1, 0]) / s, 0.25 * s,
                    (m[1, 2] + m[2, 1]) / s)
        else:
            s = 2.0 * np.sqrt(max(1.0 + m[2, 2] - m[0, 0] - m[1, 1], 1e-300))
            q[i] = ((m[1, 0] - m[0, 1]) / s, (m[0, 2] + m[2, 0]) / s,
                    (m[1, 2] + m[2, 1]) / s, 0.25 * s)
    q /= np.linalg.norm(q, axis=1)[:, None]
    q[q[:, 0] < 0] *= -1
    return q


def continuous(quats, previous):
    """Each quaternion's sign chosen nearest the one before it (a key
    after a key: Blender interpolates the components, and q and -q are
    one rotation but not one key)."""
    if previous is None:
        return quats
    flip = np.einsum("ij,ij->i", quats, previous) < 0
    out = quats.copy()
    out[flip] *= -1
    return out


def extent(points):
    """The largest side of the box around points (n, 3); 1 for none."""
    p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    if not len(p):
        return 1.0
    return float((p.max(axis=0) - p.min(axis=0)).max()) or 1.0
