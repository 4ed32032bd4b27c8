"""Errors: the daemon's stable codes (PROTOCOL.md section 6) as exceptions,
and why a connection could not be made.

Programs test ``e.code``, never the message: the codes are never renamed or
reused, the message is for people and its wording may change.  A code this
package does not know (the daemon may add some) is still an :class:`Error`,
of no more particular class.

Connecting fails with a :class:`CannotConnect` (a ``ConnectionError``)
whose message names the socket and what to do: :class:`NoSocket` (nothing
there: animd is not running, or listens elsewhere), :class:`NoPermission`
(the socket's group, to join), :class:`StaleSocket` (a socket nobody
answers on: animd is gone).  They are also ``FileNotFoundError``,
``PermissionError`` and ``ConnectionRefusedError``, as a plain ``connect``
would have raised.
"""
import errno as _errno
import os
from typing import Any, Optional

BAD_REQUEST = "bad_request"
UNKNOWN_METHOD = "unknown_method"
NOT_FOUND = "not_found"
LIMIT = "limit"
ASSET_ERROR = "asset_error"
UNSUPPORTED = "unsupported"
SHUTTING_DOWN = "shutting_down"
INTERNAL = "internal"
LOADING = "loading"
PERMISSION_DENIED = "permission_denied"

CODES = (BAD_REQUEST, UNKNOWN_METHOD, NOT_FOUND, LIMIT, ASSET_ERROR, UNSUPPORTED,
         SHUTTING_DOWN, INTERNAL, PERMISSION_DENIED, LOADING)


class Error(Exception):
    """An error reply: ``code`` (one of CODES, or a newer one), ``message``
    (one line for people) and ``method`` (the request that failed)."""

    code: Optional[str] = None

    def __init__(self, code: Optional[str], message: str, method: Optional[str] = None) -> None:
        super().__init__("%s: %s" % (code, message))
        self.code = code
        self.message = message
        self.method = method


class BadRequest(Error):
    pass


class UnknownMethod(Error):
    pass


class NotFound(Error):
    pass


class Limit(Error):
    pass


class AssetError(Error):
    pass


class Unsupported(Error):
    pass


class ShuttingDown(Error):
    pass


class Internal(Error):
    pass


class PermissionDenied(Error):
    """An operator method (``clients_kill``, ``stop(any=True)``, ...) on a
    connection this peer may not act on (PROTOCOL.md section 1,
    "Operators")."""


class Loading(Error):
    """An asset the request names did not finish loading within the
    daemon's request timeout (it waits for loads itself): nothing was done,
    the same request may succeed if sent again."""


_BY_CODE = {
    BAD_REQUEST: BadRequest, UNKNOWN_METHOD: UnknownMethod, NOT_FOUND: NotFound,
    LIMIT: Limit, ASSET_ERROR: AssetError, UNSUPPORTED: Unsupported,
    SHUTTING_DOWN: ShuttingDown, INTERNAL: Internal, PERMISSION_DENIED: PermissionDenied,
    LOADING: Loading,
}


def from_reply(err: Any, method: Optional[str] = None) -> Error:
    """The exception for an error reply's ``{"code", "message"}`` map."""
    if isinstance(err, dict):
        code, message = err.get("code"), err.get("message", "")
    else:                               # not the documented shape: say what came
        code, message = INTERNAL, "malformed error reply: %r" % (err,)
    return _BY_CODE.get(code or "", Error)(code, message, method)


class Timeout(TimeoutError):
    """No reply (or event) within the client's timeout.  The connection
    stays usable: a reply that comes later is recognised and dropped."""


class Disconnected(ConnectionError):
    """The daemon closed the connection (or broke the protocol, and the
    connection was closed): replies still owed will never come."""


class StreamError(RuntimeError):
    """A stream region that cannot be trusted (bad header, unsealed
    descriptor), or an instance that does not publish into the stream."""


class CannotConnect(ConnectionError):
    """The socket could not be reached; ``path`` is the socket, the message
    says what to do."""

    def __init__(self, path: str, err: int, message: str) -> None:
        super().__init__(err, message)
        self.path = path

    def __str__(self) -> str:
        return str(self.strerror)


class NoSocket(CannotConnect, FileNotFoundError):
    """Nothing at the path: animd is not running, or listens elsewhere."""


class NoPermission(CannotConnect, PermissionError):
    """This user may not connect: the socket is its group's."""


class StaleSocket(CannotConnect, ConnectionRefusedError):
    """A socket nobody answers on (animd is gone), or not a socket at all."""


def _group_advice(path: str) -> str:
    """What to do about EACCES: join the socket's group (its name from the
    socket itself: the daemon's socket.group, or the unit's SocketGroup),
    or log in again when this user is in it already."""
    import grp
    import pwd
    try:
        st = os.stat(path)
    except OSError as e:
        return ("this user cannot reach it (%s); ask the administrator for access, usually "
                "membership of group animd (then log in again)" % e.strerror)
    try:
        g = grp.getgrgid(st.st_gid)
        name, members = g.gr_name, g.gr_mem
    except KeyError:
        name, members = str(st.st_gid), []
    try:
        me = pwd.getpwuid(os.getuid())
        member = me.pw_name in members or me.pw_gid == st.st_gid
    except KeyError:
        member = False
    mode = "%04o" % (st.st_mode & 0o7777)
    if member:
        return ("the socket is group %s's (mode %s), and this user is in that group but this "
                "login session is not yet: log in again (or run `newgrp %s`)" % (name, mode, name))
    return ("the socket is group %s's (mode %s): join that group (sudo usermod -aG %s $USER) "
            "and log in again" % (name, mode, name))


def connect_error(path: str, e: OSError) -> OSError:
    """The package's exception for an OSError of connect(2) on ``path``
    (the OSError itself when it is none of the known cases)."""
    import stat
    if e.errno == _errno.ENOENT:
        return NoSocket(path, e.errno, "cannot connect to %s: no such socket: animd is not "
                        "running, or listens elsewhere ($ANIMD_SOCKET names another socket)"
                        % path)
    if e.errno in (_errno.EACCES, _errno.EPERM):
        return NoPermission(path, e.errno, "cannot connect to %s: permission denied: %s"
                            % (path, _group_advice(path)))
    if e.errno == _errno.ECONNREFUSED:
        try:
            if not stat.S_ISSOCK(os.stat(path).st_mode):
                return StaleSocket(path, e.errno, "cannot connect to %s: not a socket" % path)
        except OSError:
            pass
        return StaleSocket(path, e.errno, "cannot connect to %s: connection refused: a socket "
                           "is there but no daemon answers (animd is gone; starting it again "
                           "replaces the stale socket)" % path)
    return e
