"""Pictures of poses: three orthographic views of a skeleton (and, when
given, its skinned mesh: a wireframe of its triangles, or its vertices as
points when it has none), as ``animctl watch`` shows them, saved as PNG or
returned as a matplotlib Figure (which a notebook displays).  On request the
joints carry their names, and a contact sheet the trail of one joint's path
across the clip; a camera (md5camera) is drawn as its path with the view
frustum (position, view direction and fov) at each frame of the sheet.

The views are those of ``animctl watch --view``, in the file's own axes
(nothing is converted, README "Conventions"): for a Z-up file side is x/z,
front y/z, top x/y; for a Y-up file side x/y, front z/y, top x/z.  Every
axis is labelled with its letter, the up axis saying so.

matplotlib is imported only here, and only when a picture is made: the rest
of the package does not need it.  No pyplot and no GUI backend: figures are
drawn by the Agg canvas, so this works without a display.
"""
from typing import Any, List, Optional, Sequence, Tuple

from animd._deps import numpy as np

VIEWS = {
    "z_up": (("side", 0, 2), ("front", 1, 2), ("top", 0, 1)),
    "y_up": (("side", 0, 1), ("front", 2, 1), ("top", 0, 2)),
}
AXES = "xyz"
BONE, JOINT, ROOT, SKIN, EMITTER = "#1f4e79", "#c0392b", "#27ae60", "#9aa5b1", "#e67e22"
WIRE, NAME, TRAIL, PATH, FRUSTUM = "#5d6d7e", "#34495e", "#8e44ad", "#2c3e50", "#16a085"
# A frustum's depth, as a share of the path's extent, and its aspect
# (the md5camera's fov is horizontal; the vertical follows 4:3).
FRUSTUM_DEPTH, FRUSTUM_ASPECT = 0.2, 0.75


def _matplotlib() -> Tuple[Any, Any]:
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("animd.draw needs matplotlib: apt install python3-matplotlib, or "
                          "pip install 'animd[draw]'") from None
    return Figure, FigureCanvasAgg


def positions(pose: Any) -> Any:
    """Joint positions (n, 3) of a model-space pose: a Sample or stream Pose,
    an (n, 3, 4) array of matrices, or (n, 3) positions as they are."""
    space = getattr(pose, "space", None)
    if space is not None and space not in ("model", "emitters", "attachments", "vertices"):
        raise ValueError("a skeleton is drawn from model space, not %s" % space)
    if space == "vertices":
        return np.asarray(pose.vertices, dtype=np.float64)
    p = getattr(pose, "positions", None)
    if p is not None:
        return np.asarray(p, dtype=np.float64)
    a = np.asarray(pose, dtype=np.float64)
    if a.ndim == 3 and a.shape[1:] == (3, 4):
        return a[:, :, 3]
    if a.ndim == 2 and a.shape[1] == 12:
        return a.reshape(-1, 3, 4)[:, :, 3]
    if a.ndim == 2 and a.shape[1] == 3:
        return a
    raise ValueError("cannot take joint positions from an array of shape %s" % (a.shape,))


def _limits(points: List[Any], up: str) -> List[Any]:
    """Per view, (x range, y range) sharing one scale, with a margin."""
    pts = np.concatenate([p for p in points if p is not None and len(p)]) \
        if any(p is not None and len(p) for p in points) else np.zeros((1, 3))
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    half = max(float((hi - lo).max()) / 2 * 1.1, 1e-3)
    mid = (lo + hi) / 2
    return [((mid[h] - half, mid[h] + half), (mid[v] - half, mid[v] + half))
            for _, h, v in VIEWS[up]]


def _edges(tris: Any) -> Any:
    """The unique edges (e, 2) of triangles (m, 3)."""
    t = np.asarray(tris, dtype=np.int64).reshape(-1, 3)
    e = np.concatenate([t[:, [0, 1]], t[:, [1, 2]], t[:, [2, 0]]])
    return np.unique(np.sort(e, axis=1), axis=0) if len(e) else e


def _joint(key: Any, names: Any, count: int) -> int:
    """A joint given by name or index, as an index."""
    if isinstance(key, str) and not key.lstrip("-").isdigit():
        if not names or key not in names:
            raise ValueError("no joint named %r" % key)
        return list(names).index(key)
    j = int(key)
    if not 0 <= j < count:
        raise ValueError("no joint %d (the skeleton has %d)" % (j, count))
    return j


def _view(ax: Any, joints: Any, parents: Any, verts: Any, up: str, k: int, lim: Any,
          row_label: Optional[str], emit: Any = None, tris: Any = None, names: Any = None,
          trail: Any = None, trail_at: Any = None) -> None:
    name, h, v = VIEWS[up][k]
    if trail is not None and len(trail):
        # One joint's path across the clip, and where it is in this row.
        ax.plot(trail[:, h], trail[:, v], color=TRAIL, linewidth=1.5, zorder=1.5)
        if trail_at is not None:
            ax.scatter([trail_at[h]], [trail_at[v]], s=40, c=TRAIL, marker="D", zorder=4.5)
    if emit is not None and len(emit):
        # An M2's particle emitters: filled when on, hollow when off.
        on = np.asarray(emit.enabled) if hasattr(emit, "enabled") else np.ones(len(emit), bool)
        at = positions(emit)
        ax.scatter(at[on, h], at[on, v], s=70, marker="*", c=EMITTER, zorder=5)
        ax.scatter(at[~on, h], at[~on, v], s=70, marker="*", facecolors="none",
                   edgecolors=EMITTER, zorder=5)
    if verts is not None and len(verts):
        edges = _edges(tris) if tris is not None else ()
        if len(edges):
            from matplotlib.collections import LineCollection
            seg = np.stack([verts[edges[:, 0]][:, [h, v]], verts[edges[:, 1]][:, [h, v]]], axis=1)
            ax.add_collection(LineCollection(seg, colors=WIRE, linewidths=0.6, zorder=1))
        else:
            ax.scatter(verts[:, h], verts[:, v], s=2, c=SKIN, linewidths=0, zorder=1)
    if joints is not None and len(joints):
        if parents is not None:
            for j, p in enumerate(parents):
                if 0 <= p < len(joints) and j < len(joints):
                    ax.plot([joints[p, h], joints[j, h]], [joints[p, v], joints[j, v]],
                            color=BONE, linewidth=2, zorder=2)
        ax.scatter(joints[:, h], joints[:, v], s=14, c=JOINT, zorder=3)
        ax.scatter(joints[:1, h], joints[:1, v], s=30, c=ROOT, zorder=4)
        for j, label in enumerate(names or ()):
            if j < len(joints) and label is not None:
                ax.annotate(label, (joints[j, h], joints[j, v]), xytext=(3, 3),
                            textcoords="offset points", fontsize=6, color=NAME, zorder=6)
    ax.set_xlim(*lim[0])
    ax.set_ylim(*lim[1])
    ax.set_aspect("equal")
    ax.grid(True, linewidth=0.3, alpha=0.5)
    up_axis = "z" if up == "z_up" else "y"
    lab = [AXES[a] + (" (up)" if AXES[a] == up_axis else "") for a in (h, v)]
    ax.set_title("%s (%s, %s)" % (name, AXES[h], AXES[v]), fontsize=9)
    ax.set_xlabel(lab[0], fontsize=8)
    ax.set_ylabel(lab[1] if row_label is None else "%s\n%s" % (row_label, lab[1]), fontsize=8)
    ax.tick_params(labelsize=7)


def _parents(pose: Any, parents: Any) -> Any:
    if parents is not None:
        return np.asarray(parents)
    return getattr(pose, "parents", None)


def _layout(fig: Any, title: Optional[str], rows: int) -> None:
    if title:
        fig.suptitle(title, fontsize=11, weight="bold")
        fig.tight_layout(rect=(0, 0, 1, 1 - 0.35 / (3.1 * rows)))
    else:
        fig.tight_layout()


def sheet(poses: Sequence[Any], parents: Any = None, up: str = "z_up",
          vertices: Optional[Sequence[Any]] = None, titles: Optional[Sequence[str]] = None,
          path: Any = None, dpi: int = 100, title: Optional[str] = None,
          emitters: Optional[Sequence[Any]] = None, triangles: Optional[Sequence[Any]] = None,
          names: Any = None, trail: Any = None, trail_poses: Optional[Sequence[Any]] = None) -> Any:
    """One row of three views per pose, every row at the same scale (a
    contact sheet).  ``vertices``: a list beside ``poses`` of (n, 3)
    arrays (or vertices-space samples), or None, drawn as a wireframe of
    their ``triangles`` (a list beside them of (m, 3) index arrays; by
    default a Sample's own) and as points without any; ``titles``: a label
    per row (its time, say); ``title``: the figure's; ``emitters``: a list
    beside ``poses`` of emitters-space samples (or stream poses) drawn as
    stars, filled when on; ``names``: True to label each joint with a
    Sample's joint names, or the list of names; ``trail``: a joint (name
    or index) whose path through ``trail_poses`` (default ``poses``) every
    row draws, marking where it is in that row.  Returns the Figure, and
    writes it as PNG to ``path`` when given."""
    if up not in VIEWS:
        raise ValueError("up is z_up or y_up, not %r" % (up,))
    Figure, Canvas = _matplotlib()
    joints = [positions(p) for p in poses]
    verts = [None if v is None else positions(v) for v in (vertices or [None] * len(poses))]
    tris = triangles or [getattr(v, "triangles", None) for v in (vertices or [None] * len(poses))]
    emits = emitters or [None] * len(poses)
    labels: List[Optional[List[Any]]] = [None] * len(poses)
    if names is True:
        labels = [getattr(p, "names", None) for p in poses]
    elif names:
        labels = [list(names)] * len(poses)
    path_pts, at = None, [None] * len(poses)
    if trail is not None:
        known = names if isinstance(names, (list, tuple)) else getattr(poses[0], "names", None)
        j = _joint(trail, known, len(joints[0]))
        at = [p[j] for p in joints]
        path_pts = np.array([positions(p)[j] for p in trail_poses] if trail_poses else at)
    lims = _limits(joints + verts + [None if e is None else positions(e) for e in emits] +
                   [path_pts], up)
    fig = Figure(figsize=(9, 3.1 * len(poses)), dpi=dpi)
    Canvas(fig)
    for r, (pose, j, v) in enumerate(zip(poses, joints, verts)):
        for k in range(3):
            ax = fig.add_subplot(len(poses), 3, 3 * r + k + 1)
            _view(ax, j, _parents(pose, parents), v, up, k, lims[k],
                  titles[r] if titles and k == 0 else None, emits[r], tris[r], labels[r],
                  path_pts, at[r])
    _layout(fig, title, len(poses))
    if path is not None:
        save(fig, path)
    return fig


def pose(pose: Any, path: Any = None, parents: Any = None, up: str = "z_up",
         vertices: Any = None, title: Optional[str] = None, dpi: int = 100,
         names: Any = None) -> Any:
    """Three views of one pose (a model-space Sample or stream Pose, or an
    array of matrices or positions; ``parents`` from a Sample by default;
    ``names`` as for ``sheet``)."""
    return sheet([pose], parents=parents, up=up, vertices=None if vertices is None else [vertices],
                 title=title, path=path, dpi=dpi, names=names)


def _rotate(q: Any, v: Any) -> Any:
    """v (n, 3) rotated by the Hamilton quaternion q (x, y, z, w)."""
    u, w = np.asarray(q[:3], dtype=np.float64), float(q[3])
    t = 2 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def frustum(cam: Any, depth: float) -> Any:
    """The apex and four far corners (5, 3) of a camera sample's view
    (``camera`` space: position, orientation, fov in degrees), ``depth``
    ahead.  The axes are Doom's (README "Conventions"): forward +X, left
    +Y, up +Z, rotated into the world by the orientation."""
    c = np.asarray(getattr(cam, "camera", cam), dtype=np.float64).reshape(-1)
    half = np.tan(np.radians(c[7]) / 2) * depth
    local = np.array([[depth, s * half, t * half * FRUSTUM_ASPECT]
                      for s, t in ((1, 1), (-1, 1), (-1, -1), (1, -1))])
    return np.concatenate([c[None, :3], c[:3] + _rotate(c[3:7], local)])


def camera(path_samples: Sequence[Any], frames: Sequence[Any], up: str = "z_up",
           titles: Optional[Sequence[str]] = None, path: Any = None, dpi: int = 100,
           title: Optional[str] = None) -> Any:
    """A camera in three views: its path through ``path_samples`` (camera
    samples in time order; a jump of more than four times the usual step,
    a cut, leaves a gap) and at each of ``frames`` its view frustum, the
    apex at the position, the far rectangle where the view direction and
    the fov put it, labelled with ``titles`` (one per frame) when given.
    Returns the Figure, written as PNG to ``path`` when given."""
    if up not in VIEWS:
        raise ValueError("up is z_up or y_up, not %r" % (up,))
    Figure, Canvas = _matplotlib()
    pts = np.array([np.asarray(getattr(s, "camera", s), dtype=np.float64)[:3]
                    for s in path_samples]).reshape(-1, 3)
    step = np.linalg.norm(np.diff(pts, axis=0), axis=1) if len(pts) > 1 else np.zeros(0)
    cuts = np.nonzero(step > 4 * max(float(np.median(step)) if len(step) else 0.0, 1e-9))[0]
    pieces = np.split(pts, cuts + 1) if len(pts) else []
    ext = float((pts.max(axis=0) - pts.min(axis=0)).max()) if len(pts) else 1.0
    cones = [frustum(f, FRUSTUM_DEPTH * max(ext, 1e-3)) for f in frames]
    lims = _limits([pts] + cones, up)
    fig = Figure(figsize=(9, 3.1), dpi=dpi)
    Canvas(fig)
    up_axis = "z" if up == "z_up" else "y"
    for k, (name, h, v) in enumerate(VIEWS[up]):
        ax = fig.add_subplot(1, 3, k + 1)
        for piece in pieces:
            ax.plot(piece[:, h], piece[:, v], color=PATH, linewidth=1.2, zorder=2)
        for i, f in enumerate(cones):
            for c in range(1, 5):
                ax.plot([f[0, h], f[c, h]], [f[0, v], f[c, v]], color=FRUSTUM, linewidth=0.8,
                        zorder=3)
            ring = f[[1, 2, 3, 4, 1]]
            ax.plot(ring[:, h], ring[:, v], color=FRUSTUM, linewidth=0.8, zorder=3)
            ax.scatter([f[0, h]], [f[0, v]], s=12, c=FRUSTUM, zorder=4)
            if titles and k == 2:
                ax.annotate(titles[i], (f[0, h], f[0, v]), xytext=(3, -8),
                            textcoords="offset points", fontsize=6, color=NAME)
        ax.set_xlim(*lims[k][0])
        ax.set_ylim(*lims[k][1])
        ax.set_aspect("equal")
        ax.grid(True, linewidth=0.3, alpha=0.5)
        ax.set_title("%s (%s, %s)" % (name, AXES[h], AXES[v]), fontsize=9)
        ax.set_xlabel(AXES[h] + (" (up)" if AXES[h] == up_axis else ""), fontsize=8)
        ax.set_ylabel(AXES[v] + (" (up)" if AXES[v] == up_axis else ""), fontsize=8)
        ax.tick_params(labelsize=7)
    _layout(fig, title, 1)
    if path is not None:
        save(fig, path)
    return fig


def save(fig: Any, path: Any) -> None:
    """Write a Figure of this module as PNG (``path``: a name or a file)."""
    fig.savefig(path, format="png")


def frame_times(duration: float, frames: int, loop: bool = True) -> List[float]:
    """``frames`` times across a clip: a looping clip's seam is not drawn
    twice (its last frame is its first), a clip played once ends on its end."""
    if frames <= 1 or duration <= 0:
        return [0.0]
    step = duration / (frames if loop else frames - 1)
    return [i * step for i in range(frames)]


def _render_camera(client: Any, asset: str, info: Any, up: str, time: float,
                   frames: Optional[int], path: Any, dpi: int) -> Any:
    cam = info["cameras"][0]
    duration, rate = cam.get("duration", 0.0), cam.get("frame_rate") or 30
    # The path through every frame (at most 512 points), the frusta at the
    # sheet's frames (or at `time`).
    n = min(int(round(duration * rate)) + 1, 512) if duration > 0 else 1
    along = [client.sample(asset=asset, time=t, space="camera")
             for t in frame_times(duration, n, loop=False)]
    times = frame_times(duration, frames, loop=False) if frames else [time]
    shots = [client.sample(asset=asset, time=t, space="camera") for t in times]
    return camera(along, shots, up=up, titles=["t = %.2f s" % t for t in times], path=path,
                  dpi=dpi, title="%s: path and view frusta" % asset)


def render(client: Any, asset: str, clip: Optional[str] = None, time: float = 0.0,
           mesh: Optional[str] = None, frames: Optional[int] = None, vertices: bool = False,
           path: Any = None, dpi: int = 100, names: bool = False, trail: Any = None) -> Any:
    """Ask the daemon for the pose(s) and draw them: one pose at ``time``,
    or with ``frames`` a contact sheet across the clip; an M2's particle
    emitters too; with ``vertices`` the skinned mesh (a wireframe); with
    ``names`` the joints' names; with ``trail`` (a joint's name or index)
    that joint's path across the clip, sampled at 48 times or more.  A
    camera asset is drawn as its path and its frusta at those times.  The
    up axis comes from ``assets.info``.  Returns the Figure."""
    info = client.info(asset=asset)
    up = (info.get("axes") or {}).get("up", "z_up")
    if info.get("cameras"):
        return _render_camera(client, asset, info, up, time, frames, path, dpi)
    clips = info.get("clips") or []
    found = next((c for c in clips if clip is None or c["name"] == clip), None)
    name = clip if clip is not None else (found["name"] if found else None)
    times = [time]
    if frames:
        times = frame_times(found["duration"] if found else 0.0, frames,
                            bool(found.get("loop", True)) if found else True)
    poses, verts, titles, emits = [], [], [], []
    for t in times:
        if info.get("emitters"):
            emits.append(client.sample(asset=asset, clip=clip, time=t, space="emitters"))
        s = client.sample(asset=asset, clip=clip, time=t, mesh=mesh, space="model")
        poses.append(s)
        verts.append(client.sample(asset=asset, clip=clip, time=t, mesh=mesh,
                                   space="vertices") if vertices else None)
        titles.append("t = %.3f s" % t)
    along = None
    if trail is not None:
        # From the clip's start to its end (a looping clip's path closes).
        span = found["duration"] if found else 0.0
        along = [client.sample(asset=asset, clip=clip, time=t, mesh=mesh, space="model")
                 for t in frame_times(span, max(48, 4 * len(times)), loop=False)]
    return sheet(poses, up=up, vertices=verts if vertices else None, titles=titles,
                 path=path, dpi=dpi, title="%s%s" % (asset, " #" + name if name else ""),
                 emitters=emits or None, names=names, trail=trail, trail_poses=along)
