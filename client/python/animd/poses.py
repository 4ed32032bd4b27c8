"""Poses as numpy arrays: one vocabulary for a ``sample`` reply and a pose
read from a stream, so that code (``animd.draw`` among it) takes either.

Every pose has ``data``, a float32 array of one row per element in the
stream layout of PROTOCOL.md section 13, and views of it by space:

==========  =================================================================
space       views
==========  =================================================================
local       ``joints`` (n, 10); ``t`` (n, 3), ``r`` (n, 4, x y z w), ``s`` (n, 3)
model, skin ``joints`` (n, 3, 4): row-major 3x4, translation in the last column;
            ``positions`` (n, 3), that column
vertices    ``vertices`` (n, 3), every mesh back to back in file order;
            ``normals`` (n, 3) or None; a Sample also has ``triangles``
            (m, 3) int64, indices into ``vertices`` (every mesh's)
camera      ``camera`` (8,); ``position`` (3,), ``orientation`` (4,), ``fov``
emitters    ``emitters`` (n, 24); ``joints`` (n, 3, 4) their matrices,
            ``positions`` (n, 3), ``params`` (n, 10), ``enabled`` (n,) bool
attachments ``attachments`` (n, 16); ``joints`` (n, 3, 4) their matrices,
            ``positions`` (n, 3), ``animate`` (n,) bool, ``ids`` (n,) uint32
            (the file's attachment ids), ``joint_indices`` (n,) uint32 (the
            joint each hangs on)
weights     ``weights`` (n,): each glTF morph target weight (the asset's
            order: assets.info's ``weights`` names them)
==========  =================================================================

An attachments row holds three 32-bit integers after its 13 floats (id,
joint, 0), as the stream does: ``data`` carries their bits, and ``ids`` and
``joint_indices`` read them as integers.
"""
from typing import Any, Dict, List, Mapping, Optional, Tuple

from animd._deps import numpy as np

SPACES = ("local", "model", "skin", "vertices", "camera", "emitters", "attachments",
          "weights")
# Floats per element by space (section 13's strides / 4); vertices with
# normals carry 6.
FLOATS = {"local": 10, "model": 12, "skin": 12, "vertices": 3, "camera": 8, "emitters": 24,
          "attachments": 16, "weights": 1}
# The ten animated parameters of an emitter, in the stream's order.
EMITTER_PARAMS = ("emission_speed", "speed_variation", "vertical_range", "horizontal_range",
                  "gravity", "lifespan", "emission_rate", "area_length", "area_width",
                  "z_source")


class PoseViews:
    """Views of ``self.data`` (rows of the stream layout) by ``self.space``;
    a view that does not apply to the space is None."""

    space: Optional[str] = None
    # An np.ndarray (float32, one row per element), or None for a reply
    # without a pose.
    data: Any = None

    def _rows(self, k: int) -> Any:
        return self.data.reshape(-1, k) if self.data is not None else None

    @property
    def joints(self) -> Optional[np.ndarray]:
        if self.space == "local":
            return self._rows(10)
        if self.space in ("model", "skin"):
            return self.data.reshape(-1, 3, 4)
        if self.space in ("emitters", "attachments"):
            return self._rows(FLOATS[self.space])[:, :12].reshape(-1, 3, 4)
        return None

    @property
    def positions(self) -> Optional[np.ndarray]:
        j = self.joints
        if self.space == "local" or j is None:
            return None
        return j[:, :, 3]

    def _local(self, a: int, b: int) -> Optional[np.ndarray]:
        return self._rows(10)[:, a:b] if self.space == "local" else None

    t = property(lambda self: self._local(0, 3))
    r = property(lambda self: self._local(3, 7))
    s = property(lambda self: self._local(7, 10))

    @property
    def vertices(self) -> Optional[np.ndarray]:
        if self.space != "vertices":
            return None
        return self.data[:, :3]

    @property
    def normals(self) -> Optional[np.ndarray]:
        if self.space != "vertices" or self.data.shape[1] < 6:
            return None
        return self.data[:, 3:6]

    @property
    def camera(self) -> Optional[np.ndarray]:
        return self.data.reshape(8) if self.space == "camera" else None

    position = property(lambda self: self.camera[0:3] if self.space == "camera" else None)
    orientation = property(lambda self: self.camera[3:7] if self.space == "camera" else None)
    fov = property(lambda self: float(self.camera[7]) if self.space == "camera" else None)

    @property
    def emitters(self) -> Optional[np.ndarray]:
        return self._rows(24) if self.space == "emitters" else None

    @property
    def params(self) -> Optional[np.ndarray]:
        return self._rows(24)[:, 12:22] if self.space == "emitters" else None

    @property
    def enabled(self) -> Optional[np.ndarray]:
        return self._rows(24)[:, 22] > 0.5 if self.space == "emitters" else None

    @property
    def attachments(self) -> Optional[np.ndarray]:
        return self._rows(16) if self.space == "attachments" else None

    @property
    def animate(self) -> Optional[np.ndarray]:
        return self._rows(16)[:, 12] > 0.5 if self.space == "attachments" else None

    def _words(self, k: int) -> Any:
        if self.space != "attachments":
            return None
        return self._rows(16).view(np.uint32)[:, k]

    ids = property(lambda self: self._words(13))
    joint_indices = property(lambda self: self._words(14))

    @property
    def weights(self) -> Any:
        return self.data.reshape(-1) if self.space == "weights" else None

    def __array__(self, dtype: Any = None) -> Any:
        return self.data if dtype is None else self.data.astype(dtype)


def _f32(rows: List[Any], k: int) -> np.ndarray:
    a = np.array(rows, dtype=np.float32)
    return a.reshape(-1, k) if a.size else np.zeros((0, k), np.float32)


def sample_rows(reply: Mapping[str, Any]) -> Tuple[Optional[str], Optional[np.ndarray]]:
    """The stream-layout rows of a ``sample`` reply, and its space."""
    space = reply.get("space")
    if space == "local":
        return space, _f32([j["t"] + j["r"] + j["s"] for j in reply.get("joints", [])], 10)
    if space in ("model", "skin"):
        return space, _f32([j["m"] for j in reply.get("joints", [])], 12)
    if space == "vertices":
        meshes = reply.get("meshes", [])
        pos = _f32([p for m in meshes for p in m["positions"]], 3)
        if not any("normals" in m for m in meshes):
            return space, pos
        # As a normals stream carries them: zeros for a mesh without any.
        nrm = _f32([n for m in meshes for n in m.get("normals") or
                    [[0.0, 0.0, 0.0]] * len(m["positions"])], 3)
        return space, np.concatenate([pos, nrm], axis=1)
    if space == "camera":
        cam = reply["camera"]
        return space, _f32([cam["position"] + cam["orientation"] + [cam["fov"]]], 8)
    if space == "emitters":
        return space, _f32([e["m"] + [e["params"][k] for k in EMITTER_PARAMS] +
                            [1.0 if e["enabled"] else 0.0, 0.0]
                            for e in reply.get("emitters", [])], 24)
    if space == "attachments":
        points = reply.get("attachments", [])
        rows = _f32([p["m"] + [1.0 if p["animate"] else 0.0, 0.0, 0.0, 0.0] for p in points], 16)
        # The id and the joint as the stream lays them: integers' bits.
        words = rows.view(np.uint32)
        words[:, 13] = [p["id"] for p in points]
        words[:, 14] = [p["joint"] for p in points]
        return space, rows
    if space == "weights":
        return space, _f32([w["weight"] for w in reply.get("weights", [])], 1)
    return space, None


class Sample(dict, PoseViews):
    """A ``sample`` reply: the protocol's map as it came (``s["joints"]`` is
    the list of joint maps), and the pose as arrays (``s.joints``, ...; see
    the module's table).  ``names`` and ``parents`` list the joints;
    ``triangles`` (vertices space; empty from a daemon from before them)
    indexes ``vertices``, each mesh's offset by the vertices before it."""

    names: Optional[List[Optional[str]]]
    parents: Optional[np.ndarray]

    def __init__(self, reply: Mapping[str, Any]) -> None:
        super().__init__(reply)
        self.space, self.data = sample_rows(reply)
        joints = reply.get("joints") if self.space in ("local", "model", "skin") else None
        self.names = [j.get("name") for j in joints] if joints else None
        self.parents = (np.array([j.get("parent", -1) for j in joints], dtype=np.int32)
                        if joints else None)
        self.triangles = None
        if self.space == "vertices":
            tris: List[List[int]] = []
            base = 0
            for m in reply.get("meshes", []):
                tris.extend([base + i for i in t] for t in m.get("triangles") or [])
                base += len(m["positions"])
            self.triangles = (np.array(tris, dtype=np.int64).reshape(-1, 3) if tris
                              else np.zeros((0, 3), np.int64))

    def __repr__(self) -> str:
        shape = None if self.data is None else self.data.shape
        return "<animd.Sample %s %s t=%s %s>" % (self.get("asset"), self.space,
                                                 self.get("time"), shape)
