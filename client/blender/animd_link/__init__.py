"""animd link: see and record in Blender what the animd daemon plays.

Connect to a daemon, import a skeleton of any format it reads as an
armature (with its skinned meshes), drive it live from a shared-memory
pose stream, follow another client's instance, and record what it shows
into an action.  README.md beside this file says how to install and use
it; rig.py how a format's axes become Blender's.
"""
bl_info = {
    "name": "animd link",
    "author": "the animd authors",
    "version": (1, 1, 0),
    "blender": (3, 4, 0),
    "location": "View3D > Sidebar > animd",
    "description": "Show and record what the animd animation daemon plays",
    "category": "Animation",
}

if "ui" in locals():                    # Blender's "Reload Scripts"
    import importlib
    for _m in (rig, deps, source, build, pose, record, link, ui):  # noqa: F821
        importlib.reload(_m)
else:
    from . import rig, deps, source, build, pose, record, link, ui  # noqa: F401


def register():
    ui.register()


def unregister():
    ui.unregister()
