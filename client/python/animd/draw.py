"""Pictures of poses: three orthographic views of a skeleton (and, when
given, its skinned vertices), as ``animctl watch`` shows them, saved as PNG
or returned as a matplotlib Figure (which a notebook displays).

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


def _view(ax: Any, joints: Any, parents: Any, verts: Any, up: str, k: int, lim: Any,
          row_label: Optional[str], emit: Any = None) -> None:
    name, h, v = VIEWS[up][k]
    if emit is not None and len(emit):
        # An M2's particle emitters: filled when on, hollow when off.
        on = np.asarray(emit.enabled) if hasattr(emit, "enabled") else np.ones(len(emit), bool)
        at = positions(emit)
        ax.scatter(at[on, h], at[on, v], s=70, marker="*", c=EMITTER, zorder=5)
        ax.scatter(at[~on, h], at[~on, v], s=70, marker="*", facecolors="none",
                   edgecolors=EMITTER, zorder=5)
    if verts is not None and len(verts):
        ax.scatter(verts[:, h], verts[:, v], s=2, c=SKIN, linewidths=0, zorder=1)
    if joints is not None and len(joints):
        if parents is not None:
            for j, p in enumerate(parents):
                if 0 <= p < len(joints) and j < len(joints):
                    ax.plot([joints[p, h], joints[j, h]], [joints[p, v], joints[j, v]],
                            color=BONE, linewidth=2, zorder=2)
        ax.scatter(joints[:, h], joints[:, v], s=14, c=JOINT, zorder=3)
        ax.scatter(joints[:1, h], joints[:1, v], s=30, c=ROOT, zorder=4)
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


def sheet(poses: Sequence[Any], parents: Any = None, up: str = "z_up",
          vertices: Optional[Sequence[Any]] = None, titles: Optional[Sequence[str]] = None,
          path: Any = None, dpi: int = 100, title: Optional[str] = None,
          emitters: Optional[Sequence[Any]] = None) -> Any:
    """One row of three views per pose, every row at the same scale (a
    contact sheet).  ``vertices``: a list beside ``poses`` of (n, 3)
    arrays (or vertices-space samples), or None; ``titles``: a label per
    row (its time, say); ``title``: the figure's; ``emitters``: a list
    beside ``poses`` of emitters-space samples (or stream poses) drawn as
    stars, filled when on.  Returns the Figure, and
    writes it as PNG to ``path`` when given."""
    if up not in VIEWS:
        raise ValueError("up is z_up or y_up, not %r" % (up,))
    Figure, Canvas = _matplotlib()
    joints = [positions(p) for p in poses]
    verts = [None if v is None else positions(v) for v in (vertices or [None] * len(poses))]
    emits = emitters or [None] * len(poses)
    lims = _limits(joints + verts + [None if e is None else positions(e) for e in emits], up)
    fig = Figure(figsize=(9, 3.1 * len(poses)), dpi=dpi)
    Canvas(fig)
    for r, (pose, j, v) in enumerate(zip(poses, joints, verts)):
        for k in range(3):
            ax = fig.add_subplot(len(poses), 3, 3 * r + k + 1)
            _view(ax, j, _parents(pose, parents), v, up, k, lims[k],
                  titles[r] if titles and k == 0 else None, emits[r])
    if title:
        fig.suptitle(title, fontsize=11, weight="bold")
        fig.tight_layout(rect=(0, 0, 1, 1 - 0.35 / (3.1 * len(poses))))
    else:
        fig.tight_layout()
    if path is not None:
        save(fig, path)
    return fig


def pose(pose: Any, path: Any = None, parents: Any = None, up: str = "z_up",
         vertices: Any = None, title: Optional[str] = None, dpi: int = 100) -> Any:
    """Three views of one pose (a model-space Sample or stream Pose, or an
    array of matrices or positions; ``parents`` from a Sample by default)."""
    return sheet([pose], parents=parents, up=up, vertices=None if vertices is None else [vertices],
                 title=title, path=path, dpi=dpi)


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


def render(client: Any, asset: str, clip: Optional[str] = None, time: float = 0.0,
           mesh: Optional[str] = None, frames: Optional[int] = None, vertices: bool = False,
           path: Any = None, dpi: int = 100) -> Any:
    """Ask the daemon for the pose(s) and draw them: one pose at ``time``,
    or with ``frames`` a contact sheet across the clip; an M2's particle
    emitters too.  The up axis comes from ``assets.info``.  Returns the
    Figure."""
    info = client.info(asset=asset)
    up = (info.get("axes") or {}).get("up", "z_up")
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
    return sheet(poses, up=up, vertices=verts if vertices else None, titles=titles,
                 path=path, dpi=dpi, title="%s%s" % (asset, " #" + name if name else ""),
                 emitters=emits or None)
