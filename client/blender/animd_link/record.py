"""Poses into an Action with keyframes: what a live recording gathered (one
pose per published pose of the stream, at the frame of its publish time)
or a bake (``sample`` at every frame of a clip).

Each bone gets ``location``, ``rotation_quaternion`` and ``scale`` curves
(its matrix_basis split as Blender splits it), every key linear, written a
curve at a time with ``foreach_set``.  The action keeps where its poses
came from in ``action["animd"]`` (asset, clip, mesh, how) and the clip time
of every key in ``action["animd_clip_times"]``, so a key can be checked
against ``sample`` later.
"""
import numpy as np

from . import rig


class Take:
    """Poses gathered for one action: frames (fractional allowed), clip
    times, and each pose's bases (n_bones, 4, 4)."""

    def __init__(self, source):
        self.source = dict(source)
        self.frames = []
        self.clip_times = []
        self.bases = []
        self.first_ns = None

    def add(self, frame, clip_time, bases):
        self.frames.append(float(frame))
        self.clip_times.append(float(clip_time))
        self.bases.append(np.asarray(bases, dtype=np.float64))

    def add_at_ns(self, publish_ns, fps, start_frame, clip_time, bases):
        """A pose at the frame its publish time falls on, the first pose
        of the take at start_frame."""
        if self.first_ns is None:
            self.first_ns = publish_ns
        self.add(start_frame + (publish_ns - self.first_ns) * fps / 1e9, clip_time, bases)

    def __len__(self):
        return len(self.frames)


def write_action(bpy, ob, rig_, take, name):
    """A new Action named name from take, assigned to ob; the action."""
    if not len(take):
        raise ValueError("nothing was recorded")
    frames = np.asarray(take.frames)
    bases = np.stack(take.bases)                  # (keys, bones, 4, 4)
    n_keys, n_bones = bases.shape[:2]
    locs = np.empty((n_keys, n_bones, 3))
    quats = np.empty((n_keys, n_bones, 4))
    scales = np.empty((n_keys, n_bones, 3))
    prev = None
    for k in range(n_keys):
        loc, q, s = rig.decompose(bases[k])
        q = rig.continuous(q, prev)
        prev = q
        locs[k], quats[k], scales[k] = loc, q, s

    action = bpy.data.actions.new(name)
    action["animd"] = {k: ("" if v is None else v) for k, v in take.source.items()}
    action["animd_clip_times"] = list(take.clip_times)
    for b, bname in enumerate(rig_.names):
        if rig_.joint_names[b] is None:
            continue                    # a skin helper: its basis never moves
        base = 'pose.bones["%s"].' % bname.replace("\\", "\\\\").replace('"', '\\"')
        for prop, values in (("location", locs), ("rotation_quaternion", quats),
                             ("scale", scales)):
            for i in range(values.shape[2]):
                fc = action.fcurves.new(base + prop, index=i, action_group=bname)
                fc.keyframe_points.add(n_keys)
                co = np.empty(2 * n_keys, dtype=np.float32)
                co[0::2] = frames
                co[1::2] = values[:, b, i]
                fc.keyframe_points.foreach_set("co", co)
                fc.keyframe_points.foreach_set(
                    "interpolation", [_LINEAR] * n_keys)
                fc.update()
    if ob.animation_data is None:
        ob.animation_data_create()
    ob.animation_data.action = action
    for pb in ob.pose.bones:
        pb.rotation_mode = "QUATERNION"
    return action


# The enum value of LINEAR in Keyframe.interpolation (foreach_set takes the
# integer).
_LINEAR = 1
