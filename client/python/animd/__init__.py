"""animd from Python: the control protocol, pose streams and pictures.

    import animd
    with animd.Client() as c:                       # $ANIMD_SOCKET or /run/animd/animd.sock
        s = c.sample(asset="walker.md5anim", mesh="walker.md5mesh", time=0.5)
        print(s.joints.shape)                       # (joints, 3, 4), numpy

proto/PROTOCOL.md is the contract this package follows: every method of its
section 9 is a method of Client (dots become underscores: ``assets.list`` is
``assets_list()``, also ``assets()``, and returns the list as
``animc_assets_list`` does), keyword arguments named as its fields.  Results
are typed (:mod:`animd.results`; the package ships ``py.typed``).
``animd.draw`` (matplotlib, imported only when used) renders poses to PNG;
``python3 -m animd`` (or ``animd-py``) is a command line.

The names below are imported when first used, so that ``python3 -m animd``
can say which interpreter lacks numpy or msgpack rather than fail on import.
"""
import importlib
from typing import TYPE_CHECKING, Any, List

from animd.errors import (CODES, AssetError, BadRequest, CannotConnect, Disconnected, Error,
                          Internal, Limit, Loading, NoPermission, NoSocket, NotFound,
                          PermissionDenied, ShuttingDown, StaleSocket, StreamError, Timeout,
                          UnknownMethod, Unsupported)

if TYPE_CHECKING:                       # what the lazy names below are, for type checkers
    from animd.client import EVENT_TYPES, PROTOCOL_VERSION, Client
    from animd.poses import SPACES, Sample
    from animd.stream import Pose, Stream
    from animd.wire import default_socket

__version__ = "1.1.0"

# Name -> the module that defines it (needs numpy and msgpack).
_LAZY = {
    "Client": "animd.client", "EVENT_TYPES": "animd.client", "PROTOCOL_VERSION": "animd.client",
    "SPACES": "animd.poses", "Sample": "animd.poses", "Pose": "animd.stream",
    "Stream": "animd.stream", "default_socket": "animd.wire",
}

__all__ = ["Client", "Stream", "Pose", "Sample", "Error", "BadRequest", "UnknownMethod",
           "NotFound", "Limit", "AssetError", "Unsupported", "ShuttingDown", "Internal",
           "PermissionDenied", "Loading", "Timeout", "Disconnected", "StreamError",
           "CannotConnect", "NoSocket", "NoPermission", "StaleSocket", "CODES", "SPACES",
           "EVENT_TYPES", "PROTOCOL_VERSION", "default_socket", "__version__"]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError("module 'animd' has no attribute %r" % name)
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> List[str]:
    return sorted(set(globals()) | set(_LAZY))
