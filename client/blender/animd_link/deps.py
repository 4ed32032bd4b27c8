"""Finding animd's Python package, and numpy and msgpack under it, from
inside Blender.

Blender ignores $PYTHONPATH unless started with --python-use-system-env,
and a Blender from blender.org runs a Python of its own that has numpy but
not msgpack.  So the add-on looks, in order, in: the folder set in its
preferences, the folders of $PYTHONPATH, the animd source tree this add-on
sits in (client/python beside client/blender), and Debian's
/usr/lib/python3/dist-packages (where python3-animd, python3-msgpack and
python3-numpy install).  A folder is added to sys.path only when the
package is not importable without it.

What is missing is said once, in a sentence that names this Blender's
Python and what to run (:func:`load` returns it as the error).
"""
import importlib
import os
import sys

DEBIAN = "/usr/lib/python3/dist-packages"
HERE = os.path.dirname(os.path.abspath(__file__))
TREE = os.path.normpath(os.path.join(HERE, "..", "..", "python"))

_animd = None
_error = None


def candidates(pref_path=""):
    """The folders where animd may be, in the order they are tried."""
    out = []
    if pref_path:
        out.append(os.path.expanduser(pref_path))
    out.extend(p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p)
    out.append(TREE)
    out.append(DEBIAN)
    return out


def _install_hint(module):
    """What to run so that this Blender's Python can import module."""
    exe = sys.executable or "python3"
    debian = {"msgpack": "python3-msgpack", "numpy": "python3-numpy"}.get(module)
    if sys.prefix.startswith("/usr") and debian:
        # Debian's Blender runs the system Python: its packages.
        return "sudo apt install %s" % debian
    return ("\"%s\" -m ensurepip --user && \"%s\" -m pip install --user %s (Blender's own "
            "Python, %s)" % (exe, exe, module, sys.prefix))


def _try_import():
    for name in ("animd.client", "animd.stream"):
        importlib.import_module(name)
    return importlib.import_module("animd")


def load(pref_path="", force=False):
    """(animd module, None) or (None, a sentence saying what is missing
    and how to get it).  Remembered until force."""
    global _animd, _error
    if (_animd is not None or _error is not None) and not force:
        return _animd, _error
    _animd, _error = None, None
    for folder in [None] + candidates(pref_path):
        if folder is not None:
            if not os.path.isdir(os.path.join(folder, "animd")):
                continue
            if folder not in sys.path:
                sys.path.append(folder)
        try:
            _animd = _try_import()
            return _animd, None
        except ImportError as e:
            missing = getattr(e, "name", None)
            if missing in ("msgpack", "numpy"):
                _error = ("animd needs %s, which Blender's Python %s (%s, prefix %s) cannot "
                          "import: %s" % (missing, sys.version.split()[0], sys.executable,
                                          sys.prefix, _install_hint(missing)))
                return None, _error
            # Forget a half-imported package before the next folder.
            for mod in [m for m in sys.modules if m == "animd" or m.startswith("animd.")]:
                del sys.modules[mod]
    _error = ("animd's Python package was not found (looked on sys.path and in %s): install "
              "python3-animd, or set its folder (the one holding animd/) in the add-on's "
              "preferences" % ", ".join(candidates(pref_path)))
    return None, _error
