"""An armature (and its skinned meshes) in Blender from what source.skeleton
gathered, in Blender's axes (rig.py says how).

What the link needs later is kept on the objects, so that a saved .blend
links again: the armature object's ``animd`` property (the asset, the mesh
argument, the format and axes), and on each bone ``animd_joint`` (the joint
it stands for, by name: remapping after a reload goes by it) and
``animd_k`` (its correction K, 16 numbers row by row).

Bones rest at the skeleton's own bind pose; a joint whose meshes were
bound elsewhere (a .x file's skin offsets) gets a skin helper bone that
carries its vertex group (rig.py), marked ``animd_skin_of`` (its joint's
bone) and ``animd_basis`` (its constant matrix_basis).

Meshes: one object per animd mesh, parented to the armature, with an
Armature modifier and a vertex group per bone named as the bone (or its
skin helper).  The
vertices are the bind pose's and the weights the file's; Blender's armature
normalises the weights of a vertex, and with the bind pose as rest that is
exactly the daemon's skinning (PROTOCOL.md, ``sample``'s ``bind``).
Triangles keep the file's order unless the normals animd gives (the
file's, or MD5's derived ones) say Blender would see them from inside:
then each is reversed.
"""
import bpy
import numpy as np
from mathutils import Matrix

from . import rig


def _select_only(context, ob):
    for o in context.view_layer.objects:
        o.select_set(False)
    ob.select_set(True)
    context.view_layer.objects.active = ob


def armature(context, skel, name=None):
    """A new armature object for skel (source.skeleton's dict), with its
    meshes; the object, active and selected."""
    c = rig.axes_matrix(skel["up"], skel["handedness"])
    bound4 = rig.convert(np.asarray(skel["bind"], dtype=np.float64), c)
    bind4 = bound4
    if skel.get("bind_skin") is not None:
        bind4 = rig.frames_bind(bound4, rig.convert(skel["bind_skin"], c))
    points = [bind4[:, :3, 3]] + [rig.convert_points(m["positions"], c) for m in skel["meshes"]]
    size = rig.extent(np.concatenate(points))
    rest, lengths = rig.rest_frames(bind4, skel["parents"], size)
    names = rig.bone_names(skel["names"])
    # Joints whose meshes were bound elsewhere than the skeleton's bind
    # pose get a skin helper (rig.py).
    xs = bind4 @ np.linalg.inv(bound4)
    off = np.abs(xs[:, :3, :3] - np.eye(3)).max(axis=(1, 2))
    moved = np.abs(xs[:, :3, 3]).max(axis=1) / size
    helpers = [j for j in range(len(names)) if off[j] > 1e-5 or moved[j] > 1e-5]
    helper_names = rig.bone_names(names + ["%s skin" % names[j] for j in helpers])[len(names):]

    name = name or skel["asset"].rsplit("/", 1)[-1]
    arm = bpy.data.armatures.new(name)
    arm.display_type = "STICK" if len(names) > 200 else "OCTAHEDRAL"
    ob = bpy.data.objects.new(name, arm)
    context.scene.collection.objects.link(ob)
    _select_only(context, ob)
    bpy.ops.object.mode_set(mode="EDIT")
    try:
        ebones = []
        for j, bname in enumerate(names):
            eb = arm.edit_bones.new(bname)
            eb.head = (0.0, 0.0, 0.0)
            eb.tail = (0.0, float(lengths[j]), 0.0)
            eb.matrix = Matrix(rest[j].tolist())
            p = skel["parents"][j]
            if 0 <= p < j:
                eb.parent = ebones[p]
            ebones.append(eb)
        for j, hname in zip(helpers, helper_names):
            eb = arm.edit_bones.new(hname)
            eb.head = (0.0, 0.0, 0.0)
            eb.tail = (0.0, float(lengths[j]) * 0.5, 0.0)
            frame = np.eye(4)
            frame[:3, :3] = rig.skin_helper(xs[j])
            frame[:3, 3] = rest[j, :3, 3]
            eb.matrix = Matrix(frame.tolist())
            eb.parent = ebones[j]
        # Edit bones are renamed on collision with nothing else here, but
        # take what Blender kept.
        names = [eb.name for eb in ebones]
    finally:
        bpy.ops.object.mode_set(mode="OBJECT")

    # K from the rest matrices as Blender stored them (head, tail and roll
    # round the matrix given).
    actual = np.array([np.array(arm.bones[n].matrix_local) for n in names])
    kmat = rig.corrections(bind4, actual)
    for j, n in enumerate(names):
        b = arm.bones[n]
        b["animd_joint"] = skel["names"][j]
        b["animd_k"] = [float(x) for x in kmat[j].ravel()]
    deform_names = list(names)
    for j, hname in zip(helpers, helper_names):
        hrest = np.array(arm.bones[hname].matrix_local)
        basis = np.linalg.inv(hrest) @ xs[j] @ hrest
        arm.bones[hname]["animd_skin_of"] = names[j]
        arm.bones[hname]["animd_basis"] = [float(x) for x in basis.ravel()]
        ob.pose.bones[hname].matrix_basis = Matrix(basis.tolist())
        deform_names[j] = hname
    ob["animd"] = {"asset": skel["asset"], "source": skel["source"],
                   "mesh": skel["mesh_arg"] or "", "format": skel["format"] or "",
                   "up": skel["up"], "handedness": skel["handedness"], "size": size,
                   "bind_pose": bool(skel["bind_pose"])}
    for m in skel["meshes"]:
        mesh_object(context, ob, m, deform_names, c)
    _select_only(context, ob)
    return ob


def _faces(tris, verts, normals):
    """The triangles, reversed when the normals say they face inward."""
    t = np.asarray(tris, dtype=np.int64).reshape(-1, 3)
    if not len(t) or normals is None:
        return t
    a, b, cc = verts[t[:, 0]], verts[t[:, 1]], verts[t[:, 2]]
    face = np.cross(b - a, cc - a)
    corner = normals[t[:, 0]] + normals[t[:, 1]] + normals[t[:, 2]]
    if float(np.einsum("ij,ij->", face, corner)) < 0:
        return t[:, [0, 2, 1]]
    return t


def mesh_object(context, arm_ob, m, bone_names, c):
    """One animd mesh as an object skinned by arm_ob."""
    verts = rig.convert_points(m["positions"], c)
    normals = None if m.get("normals") is None else rig.convert_points(m["normals"], c)
    faces = _faces(m["triangles"], verts, normals)
    me = bpy.data.meshes.new(m["name"])
    me.from_pydata(verts.tolist(), [], faces.tolist())
    me.update()
    if m.get("material"):
        mat = bpy.data.materials.get(m["material"]) or bpy.data.materials.new(m["material"])
        me.materials.append(mat)
    ob = bpy.data.objects.new(m["name"], me)
    context.scene.collection.objects.link(ob)
    ob.parent = arm_ob
    mod = ob.modifiers.new("animd", "ARMATURE")
    mod.object = arm_ob
    w = m.get("weights")
    if w is not None:
        _vertex_groups(ob, w, bone_names)
    return ob


def _vertex_groups(ob, w, bone_names):
    """A vertex group per bone a vertex's weights name, weights summed per
    vertex and joint (a file may name one joint twice for a vertex)."""
    counts = np.asarray(w["counts"], dtype=np.int64)
    joints = np.asarray(w["joints"], dtype=np.int64)
    values = np.asarray(w["values"], dtype=np.float64)
    vertex = np.repeat(np.arange(len(counts)), counts)
    pairs = {}
    for v, j, x in zip(vertex.tolist(), joints.tolist(), values.tolist()):
        pairs[(j, v)] = pairs.get((j, v), 0.0) + x
    by_joint = {}
    for (j, v), x in pairs.items():
        by_joint.setdefault(j, {}).setdefault(x, []).append(v)
    for j in sorted(by_joint):
        if not 0 <= j < len(bone_names):
            continue
        vg = ob.vertex_groups.get(bone_names[j]) or ob.vertex_groups.new(name=bone_names[j])
        for x, vs in by_joint[j].items():
            vg.add(vs, x, "REPLACE")
