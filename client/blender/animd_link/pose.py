"""Posing an imported armature from the daemon's model matrices, and
reading its joints back (for checks): the bpy side of rig.py.

A Rig is read once from the armature object (the properties build.py left
on it) and holds what every frame needs: the axes matrix C, each bone's
rest matrix L, correction K and parent, and which joint of the daemon's
current skeleton feeds each bone (by name, remapped when a reload changes
the skeleton).  Posing writes every bone's ``matrix_basis`` with one
``foreach_set``; nothing is looked up by name per frame.
"""
import numpy as np

from . import rig


class Rig:
    def __init__(self, ob):
        props = ob.get("animd")
        if props is None:
            raise ValueError("%s was not imported from animd" % ob.name)
        self.object_name = ob.name
        self.props = dict(props)
        self.c = rig.axes_matrix(props["up"], props["handedness"])
        bones = ob.data.bones
        self.names = [b.name for b in bones]
        self.index = {n: i for i, n in enumerate(self.names)}
        self.parent = np.array([self.index[b.parent.name] if b.parent else -1 for b in bones],
                               dtype=np.int64)
        self.rest = np.array([np.array(b.matrix_local) for b in bones])
        self.kmat = np.array([np.array(b["animd_k"], dtype=np.float64).reshape(4, 4)
                              if "animd_k" in b else np.eye(4) for b in bones])
        self.joint_names = [b.get("animd_joint", b.name) if "animd_k" in b else None
                            for b in bones]
        # Skin helpers keep a constant basis (build.py, rig.py).
        self.helpers = {i: np.array(b["animd_basis"], dtype=np.float64).reshape(4, 4)
                        for i, b in enumerate(bones) if "animd_basis" in b}
        # Bones come parents first (Blender keeps creation order, and build
        # made them in joint order), which basis() relies on; check it.
        for i, p in enumerate(self.parent):
            if p >= i:
                raise ValueError("%s: bone %s comes before its parent" % (ob.name, self.names[i]))
        self.bone_joint = np.full(len(self.names), -1, dtype=np.int64)
        self.generation = None
        # Pose channels are not promised to come in the bones' order.
        self.pose_order = np.array([self.index[pb.name] for pb in ob.pose.bones],
                                   dtype=np.int64)

    def map_joints(self, joint_names):
        """Which joint feeds each bone, by the joint names of the daemon's
        skeleton now (the n-th joint of a name to the n-th bone of it).
        Returns the bones left without one (their joint is gone)."""
        where = {}
        for j, n in enumerate(joint_names):
            where.setdefault(n, []).append(j)
        seen = {}
        missing = []
        for b, n in enumerate(self.joint_names):
            if n is None:
                self.bone_joint[b] = -1
                continue
            k = seen.get(n, 0)
            seen[n] = k + 1
            js = where.get(n, [])
            self.bone_joint[b] = js[k] if k < len(js) else -1
            if self.bone_joint[b] < 0:
                missing.append(self.names[b])
        return missing

    def bases(self, model34):
        """matrix_basis of every bone (n_bones, 4, 4) for the daemon's
        model matrices (n_joints, 3, 4)."""
        m4 = rig.convert(model34, self.c)
        t = rig.targets(m4, self.kmat, self.bone_joint, self.parent, self.rest)
        out = rig.basis(t, self.rest, self.parent)
        for i, b in self.helpers.items():
            out[i] = b
        return out

    def apply(self, ob, bases):
        """Write the bases into ob's pose (bones in armature order)."""
        flat = np.ascontiguousarray(bases[self.pose_order].transpose(0, 2, 1),
                                    dtype=np.float32).ravel()
        ob.pose.bones.foreach_set("matrix_basis", flat)
        ob.update_tag(refresh={"OBJECT", "DATA"})

    def joints_of_pose(self, ob):
        """The joint matrices (n_bones, 4, 4) in Blender's axes that the
        evaluated pose stands for: pose_bone.matrix K^-1 (what a check
        compares with the daemon's, converted)."""
        p = np.empty((len(self.names), 4, 4))
        p[self.pose_order] = [np.array(pb.matrix) for pb in ob.pose.bones]
        return p @ np.linalg.inv(self.kmat)
