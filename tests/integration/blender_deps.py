"""The add-on when Blender's Python lacks what animd needs (test_blender.sh
runs it in Blender): a Python without msgpack (as blender.org's bundled
one is) and one without the animd package are each told so in one
sentence naming the interpreter and what to run, and the Connect button
fails with that sentence instead of a traceback.  Exit 0 pass, 1 fail."""
import os
import sys

import bpy

SRC = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SRC, "client", "blender"))
failures = []


def check(cond, what):
    print(("ok: " if cond else "not ok: ") + what)
    if not cond:
        failures.append(what)


def connect_error():
    try:
        bpy.ops.animd.connect()
    except RuntimeError as e:
        return str(e)
    return None


import animd_link  # noqa: E402  (the tree's add-on)

animd_link.register()
deps = animd_link.deps

# No animd package anywhere: not in the tree, not in dist-packages, not on
# sys.path, no $PYTHONPATH, no preference.
tree, debian = deps.TREE, deps.DEBIAN
deps.TREE = deps.DEBIAN = "/nonexistent"
os.environ.pop("PYTHONPATH", None)
hidden = [p for p in sys.path if os.path.isdir(os.path.join(p, "animd"))]
sys.path[:] = [p for p in sys.path if p not in hidden]
mod, err = deps.load(force=True)
check(mod is None and err is not None and "not found" in err and "preferences" in err,
      "no animd package: said, with where to set its folder (%s)" % err)
msg = connect_error()
check(msg is not None and "not found" in msg, "Connect says it (%s)" % msg)

# A Python without msgpack (blender.org's): the package is found, msgpack
# is not.
deps.TREE, deps.DEBIAN = tree, debian
sys.modules["msgpack"] = None
mod, err = deps.load(force=True)
check(mod is None and err is not None and "msgpack" in err and sys.executable in err and
      ("apt install python3-msgpack" in err or "pip install" in err),
      "no msgpack: said with the interpreter and what to run (%s)" % err)
msg = connect_error()
check(msg is not None and "msgpack" in msg, "Connect says it too (%s)" % msg)
del sys.modules["msgpack"]
mod, err = deps.load(force=True)
check(mod is not None and err is None, "found once msgpack is back (%s)" % err)
animd_link.unregister()
print("blender_deps.py: %d failed" % len(failures))
sys.exit(1 if failures else 0)
