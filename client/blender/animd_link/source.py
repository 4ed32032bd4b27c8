"""What the daemon says about a skeleton and the clips that drive it
(no bpy: a Client in, plain data out).

A skeleton comes from ``assets.info`` (joint names and parents, the axes,
the meshes) and the bind pose from ``sample`` with ``bind`` (its model
matrices, and in the ``vertices`` space with ``weights`` the meshes at that
pose with their triangles and each vertex's joints and weights).  An
md5anim has no skeleton of its own to bind: the md5mesh whose joints it
fits (names and parents, as the daemon checks) supplies it.  A skeleton
without a bind pose (an md5anim with no mesh to fit) is posed by its first
clip at time 0 instead, and has no mesh.
"""


def joints_of(info):
    """[(name, parent), ...] of an assets.info reply, [] without a skeleton."""
    sk = info.get("skeleton") or {}
    return [(j.get("name") or "", int(j.get("parent", -1))) for j in sk.get("joints") or []]


def fits(a, b):
    """Whether two joint lists bind (the daemon's rule: same names and
    parents, index by index)."""
    return len(a) == len(b) and all(x == y for x, y in zip(a, b))


class Catalog:
    """The daemon's assets and their assets.info, asked once each (until
    forget(): a reload changes them)."""

    def __init__(self, client):
        self.client = client
        self._infos = {}
        self._list = None

    def assets(self):
        if self._list is None:
            self._list = [a for a in self.client.assets() if a.get("ok")]
        return self._list

    def info(self, asset):
        if asset not in self._infos:
            self._infos[asset] = self.client.info(asset=asset)
        return self._infos[asset]

    def forget(self, asset=None):
        if asset is None:
            self._infos.clear()
            self._list = None
        else:
            self._infos.pop(asset, None)

    def of_format(self, fmt):
        return [a["asset"] for a in self.assets() if a.get("format") == fmt]

    def mesh_for(self, anim):
        """The first md5mesh (by name) an md5anim fits, or None."""
        want = joints_of(self.info(anim))
        for m in self.of_format("md5mesh"):
            if fits(joints_of(self.info(m)), want):
                return m
        return None

    def anims_for(self, mesh):
        """The md5anims that fit an md5mesh, by name."""
        want = joints_of(self.info(mesh))
        return [a for a in self.of_format("md5anim") if fits(joints_of(self.info(a)), want)]


def skeleton(catalog, asset):
    """Everything an armature is built from, for an asset of any format:
    a dict with ``source`` (the asset the skeleton and bind pose are of),
    ``mesh_arg`` (what ``play`` and ``sample`` take as ``mesh`` for its
    clips: the md5mesh of an MD5 skeleton, else None),
    ``format``, ``up``, ``handedness``, ``names``, ``parents``, ``bind``
    (the model matrices, n x 12: where the meshes were bound), ``bind_skin``
    (the ``skin`` matrices of that pose, or None), ``bind_pose`` (False when
    it is a clip's first frame), ``meshes`` (each ``name``, ``material``, ``positions``,
    ``normals`` or None, ``triangles``, ``weights``).  ValueError, saying
    why, for an asset with no skeleton (a camera)."""
    client = catalog.client
    info = catalog.info(asset)
    fmt = info.get("format")
    source, mesh_arg = asset, None
    if fmt == "md5anim":
        mesh = catalog.mesh_for(asset)
        if mesh is not None:
            source, mesh_arg = mesh, mesh
            info = catalog.info(mesh)
    if info.get("format") == "md5mesh":
        mesh_arg = source               # what its md5anims play and sample with
    if not info.get("skeleton"):
        raise ValueError("%s has no skeleton to import (%s)" % (
            asset, "a camera" if fmt == "md5camera" else "format %s" % fmt))
    joints = joints_of(info)
    axes = info.get("axes") or {}
    out = {"asset": asset, "source": source, "mesh_arg": mesh_arg, "format": info.get("format"),
           "up": axes.get("up", "z_up"), "handedness": axes.get("handedness", "right"),
           "names": [n for n, _ in joints], "parents": [p for _, p in joints],
           "meshes": [], "bind_pose": True}
    if info["skeleton"].get("bind_pose", True):
        bind = client.sample(asset=source, bind=True)
    else:
        # No bind pose of its own and no mesh to lend one: the first clip's
        # first frame stands in, with nothing to skin.
        bind = client.sample(asset=source, time=0.0)
        out["bind_pose"] = False
    out["bind"] = [j["m"] for j in bind["joints"]]
    out["bind_skin"] = None
    if out["bind_pose"]:
        # skin = model x the inverse of the skeleton's own bind matrices,
        # so at the bind pose it says where the meshes' binding (a .x
        # file's skin offsets) departs from them: rig.frames_bind.
        out["bind_skin"] = [j["m"] for j in client.sample(asset=source, bind=True,
                                                          space="skin")["joints"]]
    if out["bind_pose"] and info.get("meshes"):
        verts = client.sample(asset=source, bind=True, space="vertices", skin_weights=True)
        materials = [m.get("material") for m in info["meshes"]]
        for i, m in enumerate(verts["meshes"]):
            out["meshes"].append({
                "name": m.get("name") or "mesh%d" % i,
                "material": materials[i] if i < len(materials) else None,
                "positions": m["positions"], "normals": m.get("normals"),
                "triangles": m.get("triangles") or [], "weights": m.get("skin_weights")})
    return out


def clips(catalog, skel):
    """The clips that drive a skeleton: [(key, asset, clip, mesh, duration)],
    key being "asset#clip" (what the panel lists).  An md5mesh's are the
    md5anims that fit it; every other format's, its own clips."""
    out = []
    if skel["mesh_arg"] is not None:
        for anim in catalog.anims_for(skel["source"]):
            for c in catalog.info(anim).get("clips") or []:
                out.append(("%s#%s" % (anim, c["name"]), anim, c["name"], skel["source"],
                            float(c.get("duration") or 0.0)))
        return out
    for c in catalog.info(skel["source"]).get("clips") or []:
        if c.get("loaded", True):
            out.append(("%s#%s" % (skel["source"], c["name"]), skel["source"], c["name"], None,
                        float(c.get("duration") or 0.0)))
    return out
