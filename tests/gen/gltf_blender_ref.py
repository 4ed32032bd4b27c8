"""gltf_blender_ref.py - an independent reference for animd's glTF poses, made
by Blender: a skinned, shape-keyed, animated scene built here, exported with
Blender's own glTF exporter, and Blender's own evaluation of that scene
written beside it.

    blender -b --factory-startup --python tests/gen/gltf_blender_ref.py -- OUTDIR

writes OUTDIR/rig.gltf (+ rig.bin), OUTDIR/rig.glb and OUTDIR/rig.ref.json.
The scene: an armature of four bones (a chain of three with rolls and
bends, and a side bone), its object moved and turned; a tube of 9 rings of
8 vertices around the chain, each vertex weighed on at most two bones;
two shape keys ("Bulge", "Lean").  One action moves the bones (rotations,
the root's translation, the side bone's scale) and the shape keys' values
over 24 frames at 24 fps; the exporter samples it at every frame, so the
glTF's keys are Blender's poses at those frames.

The reference, per frame 0..24 (seconds = frame / 24), in glTF's axes
(Blender's Z up turned Y up, as the exporter turns it: (x, y, z) ->
(x, z, -y)):
  - "vertices": every tube vertex as Blender deforms it (shape keys, then
    the armature modifier), in world space, keyed by its rest position
    (the tests match vertices by it: the exporter reorders them);
  - "skin": per bone, Blender's skinning matrix, world * pose * rest^-1 *
    world^-1 (what glTF's global(joint) * inverseBindMatrix is, whatever
    basis the exporter gives a bone's node), 3x4 row-major;
  - "heads": per bone, its head's world position (its glTF node's global
    translation);
  - "weights": the shape keys' values.
Blender 3.4's importer is not involved (it drops cubic tangents and
renormalises weights): Blender evaluates its own scene.  Re-run it when
Blender is present; the files it wrote are committed under
tests/fixtures/gltf/blender/ so the tests run without it.
"""
import json
import math
import os
import sys

import bmesh
import bpy
from mathutils import Matrix, Quaternion, Vector

out = sys.argv[sys.argv.index("--") + 1] if "--" in sys.argv else "."
os.makedirs(out, exist_ok=True)

bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
scene.render.fps = 24
scene.frame_start, scene.frame_end = 0, 24

# The armature: root -> mid -> tip up the chain, and a side bone off mid.
arm_data = bpy.data.armatures.new("Rig")
arm = bpy.data.objects.new("Rig", arm_data)
scene.collection.objects.link(arm)
arm.location = (0.5, -0.25, 0.1)
arm.rotation_euler = (0.0, 0.0, math.radians(30))
bpy.context.view_layer.objects.active = arm
bpy.ops.object.mode_set(mode="EDIT")
bones = {}
for name, head, tail, parent, roll in (
        ("root", (0, 0, 0), (0, 0, 1.0), None, 0.0),
        ("mid", (0, 0, 1.0), (0.1, 0.15, 2.0), "root", 0.4),
        ("tip", (0.1, 0.15, 2.0), (0, 0, 3.0), "mid", -0.7),
        ("side", (0.1, 0.15, 2.0), (0.8, 0.15, 2.2), "mid", 0.2)):
    b = arm_data.edit_bones.new(name)
    b.head, b.tail, b.roll = head, tail, roll
    if parent:
        b.parent = bones[parent]
        b.use_connect = name != "side"
    bones[name] = b
bpy.ops.object.mode_set(mode="OBJECT")

# The tube: 9 rings of 8 around z in 0..3, smooth, quads.
mesh = bpy.data.meshes.new("Tube")
tube = bpy.data.objects.new("Tube", mesh)
scene.collection.objects.link(tube)
bm = bmesh.new()
RINGS, SIDES = 9, 8
ring_z = [3.0 * r / (RINGS - 1) for r in range(RINGS)]
verts = []
for r, z in enumerate(ring_z):
    for k in range(SIDES):
        a = 2 * math.pi * k / SIDES + 0.1 * r
        verts.append(bm.verts.new((0.3 * math.cos(a), 0.3 * math.sin(a), z)))
for r in range(RINGS - 1):
    for k in range(SIDES):
        a, b = r * SIDES + k, r * SIDES + (k + 1) % SIDES
        bm.faces.new((verts[a], verts[b], verts[b + SIDES], verts[a + SIDES]))
bm.to_mesh(mesh)
bm.free()
for p in mesh.polygons:
    p.use_smooth = True

# Weights: along the chain, two bones at most; the side bone takes the
# +x side of the upper rings.
groups = {n: tube.vertex_groups.new(name=n) for n in ("root", "mid", "tip", "side")}
for v in mesh.vertices:
    z = v.co.z
    if z <= 1.0:
        pairs = (("root", 1.0 - 0.5 * z), ("mid", 0.5 * z))
    elif z <= 2.0:
        t = z - 1.0
        pairs = (("mid", 1.0 - 0.6 * t), ("tip", 0.6 * t))
    else:
        t = z - 2.0
        pairs = (("tip", 1.0 - 0.3 * t), ("side", 0.3 * t)) if v.co.x > 0 else (("tip", 1.0),)
    for name, w in pairs:
        groups[name].add([v.index], w, "REPLACE")
mod = tube.modifiers.new("Armature", "ARMATURE")
mod.object = arm
# The exporter wants the armature as the skinned mesh's parent; the tube
# stays where it is in the world.
bpy.context.view_layer.update()
tube.parent = arm
tube.matrix_parent_inverse = arm.matrix_world.inverted()

# Shape keys: Bulge (the middle rings out) and Lean (the top over to +x).
tube.shape_key_add(name="Basis")
bulge = tube.shape_key_add(name="Bulge", from_mix=False)
lean = tube.shape_key_add(name="Lean", from_mix=False)
for i, v in enumerate(mesh.vertices):
    z = v.co.z
    k = max(0.0, 1.0 - abs(z - 1.5) / 1.5)
    bulge.data[i].co = Vector((v.co.x * (1 + 0.4 * k), v.co.y * (1 + 0.4 * k), z))
    lean.data[i].co = Vector((v.co.x + 0.25 * z / 3.0, v.co.y, z))

# The action: bones and shape keys keyed over 24 frames.
pose = arm.pose.bones
for pb in pose:
    pb.rotation_mode = "QUATERNION"
keys = {
    0: {"root": Quaternion((1, 0, 0), 0.0), "mid": Quaternion((1, 0, 0), 0.0),
        "tip": Quaternion((0, 1, 0), 0.0), "side": Quaternion((0, 0, 1), 0.0)},
    8: {"root": Quaternion((0, 0, 1), 0.6), "mid": Quaternion((1, 0, 0), 0.5),
        "tip": Quaternion((0, 1, 0), -0.4), "side": Quaternion((0, 0, 1), 0.8)},
    16: {"root": Quaternion((0, 0, 1), -0.3), "mid": Quaternion((1, 1, 0), 0.9),
         "tip": Quaternion((1, 0, 1), 0.7), "side": Quaternion((0, 1, 0), -0.5)},
    24: {"root": Quaternion((0, 0, 1), 0.0), "mid": Quaternion((1, 0, 0), 0.2),
         "tip": Quaternion((0, 1, 0), 0.3), "side": Quaternion((0, 0, 1), 0.0)},
}
for frame, rots in keys.items():
    for name, q in rots.items():
        pose[name].rotation_quaternion = q
        pose[name].keyframe_insert("rotation_quaternion", frame=frame)
    pose["root"].location = (0.0, 0.3 * math.sin(frame / 4.0), 0.0)
    pose["root"].keyframe_insert("location", frame=frame)
    s = 1.0 + 0.5 * math.sin(frame / 5.0)
    pose["side"].scale = (s, s, s)
    pose["side"].keyframe_insert("scale", frame=frame)
    bulge.value = 0.5 + 0.5 * math.sin(frame / 3.0)
    bulge.keyframe_insert("value", frame=frame)
    lean.value = frame / 24.0
    lean.keyframe_insert("value", frame=frame)
arm.animation_data.action.name = "Move"
tube.data.shape_keys.animation_data.action.name = "Move"

# Export, as a .gltf with its .bin and as a .glb.
bpy.ops.object.select_all(action="SELECT")
common = dict(export_animations=True, export_force_sampling=True, export_frame_range=True,
              export_skins=True, export_morph=True, export_morph_normal=True,
              export_apply=False, export_yup=True, export_texcoords=False,
              export_materials="NONE", export_nla_strips=False,
              export_def_bones=False, export_all_influences=False)
bpy.ops.export_scene.gltf(filepath=os.path.join(out, "rig.gltf"), export_format="GLTF_SEPARATE",
                          **common)
bpy.ops.export_scene.gltf(filepath=os.path.join(out, "rig.glb"), export_format="GLB", **common)

# Blender's own evaluation, in glTF's axes.
C = Matrix(((1, 0, 0, 0), (0, 0, 1, 0), (0, -1, 0, 0), (0, 0, 0, 1)))


def num(x):
    """Seven decimals: far below the 1e-4 of the model's size compared."""
    return round(x, 7) + 0.0


def yup(v):
    return [num(v.x), num(v.z), num(-v.y)]


def mat(m):
    m = C @ m @ C.inverted()
    return [num(m[r][c]) for r in range(3) for c in range(4)]


rest = [yup(v.co) for v in mesh.vertices]
frames = []
for f in range(scene.frame_start, scene.frame_end + 1):
    scene.frame_set(f)
    dg = bpy.context.evaluated_depsgraph_get()
    ev = tube.evaluated_get(dg)
    em = ev.to_mesh()
    world = ev.matrix_world
    aw = arm.evaluated_get(dg).matrix_world
    frames.append({
        "frame": f,
        "time": f / scene.render.fps,
        "vertices": [yup(world @ v.co) for v in em.vertices],
        "skin": {pb.name: mat(aw @ pb.matrix @ pb.bone.matrix_local.inverted() @ aw.inverted())
                 for pb in arm.pose.bones},
        "heads": {pb.name: yup(aw @ pb.head) for pb in arm.pose.bones},
        "weights": {k.name: num(k.value) for k in tube.data.shape_keys.key_blocks[1:]},
    })
    ev.to_mesh_clear()
with open(os.path.join(out, "rig.ref.json"), "w") as fo:
    json.dump({"blender": bpy.app.version_string, "fps": scene.render.fps,
               "rest": rest, "frames": frames}, fo, indent=None, separators=(",", ":"))
print("gltf_blender_ref: wrote", out)
