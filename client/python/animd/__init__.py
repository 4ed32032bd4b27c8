"""animd from Python: the control protocol, pose streams and pictures.

    import animd
    with animd.Client() as c:                       # $ANIMD_SOCKET or /run/animd/animd.sock
        s = c.sample(asset="walker.md5anim", mesh="walker.md5mesh", time=0.5)
        print(s.joints.shape)                       # (joints, 3, 4), numpy

proto/PROTOCOL.md is the contract this package follows: every method of its
section 9 is a method of Client (dots become underscores, ``assets.list`` is
also ``assets()``), keyword arguments named as its fields.  ``animd.draw``
(matplotlib, imported only when used) renders poses to PNG.
"""
from animd.client import EVENT_TYPES, PROTOCOL_VERSION, Client
from animd.errors import (CODES, AssetError, BadRequest, Disconnected, Error, Internal, Limit,
                          Loading, NotFound, ShuttingDown, StreamError, Timeout, UnknownMethod,
                          Unsupported)
from animd.poses import SPACES, Sample
from animd.stream import Pose, Stream
from animd.wire import default_socket

__version__ = "1.0.0"

__all__ = ["Client", "Stream", "Pose", "Sample", "Error", "BadRequest", "UnknownMethod",
           "NotFound", "Limit", "AssetError", "Unsupported", "ShuttingDown", "Internal",
           "Loading", "Timeout", "Disconnected", "StreamError", "CODES", "SPACES", "EVENT_TYPES",
           "PROTOCOL_VERSION", "default_socket", "__version__"]
