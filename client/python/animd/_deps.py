"""The two packages animd needs, imported with a message that says which
interpreter lacks one and how to install it: a virtualenv or pyenv
python3 first on PATH lacks what Debian's packages gave /usr/bin/python3,
and a bare ImportError does not say so."""
import sys


def _missing(module: str, debian: str, e: ImportError) -> ImportError:
    err = ImportError("animd needs %s, which this Python (%s) cannot import (%s): install it "
                      "for that interpreter (Debian's python3: sudo apt install %s; another: "
                      "%s -m pip install %s)"
                      % (module, sys.executable, e, debian, sys.executable, module))
    err.name = module
    return err


try:
    import msgpack
except ImportError as e:
    raise _missing("msgpack", "python3-msgpack", e) from e
try:
    import numpy
except ImportError as e:
    raise _missing("numpy", "python3-numpy", e) from e

__all__ = ["msgpack", "numpy"]
