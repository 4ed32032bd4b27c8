"""Errors: the daemon's stable codes (PROTOCOL.md section 6) as exceptions.

Programs test ``e.code``, never the message: the codes are never renamed or
reused, the message is for people and its wording may change.  A code this
package does not know (the daemon may add some) is still an :class:`Error`,
of no more particular class.
"""

BAD_REQUEST = "bad_request"
UNKNOWN_METHOD = "unknown_method"
NOT_FOUND = "not_found"
LIMIT = "limit"
ASSET_ERROR = "asset_error"
UNSUPPORTED = "unsupported"
SHUTTING_DOWN = "shutting_down"
INTERNAL = "internal"
LOADING = "loading"

CODES = (BAD_REQUEST, UNKNOWN_METHOD, NOT_FOUND, LIMIT, ASSET_ERROR, UNSUPPORTED,
         SHUTTING_DOWN, INTERNAL, LOADING)


class Error(Exception):
    """An error reply: ``code`` (one of CODES, or a newer one), ``message``
    (one line for people) and ``method`` (the request that failed)."""

    code = None

    def __init__(self, code, message, method=None):
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


class Loading(Error):
    """An asset the request names did not finish loading within the
    daemon's request timeout (it waits for loads itself): nothing was done,
    the same request may succeed if sent again."""


_BY_CODE = {
    BAD_REQUEST: BadRequest, UNKNOWN_METHOD: UnknownMethod, NOT_FOUND: NotFound,
    LIMIT: Limit, ASSET_ERROR: AssetError, UNSUPPORTED: Unsupported,
    SHUTTING_DOWN: ShuttingDown, INTERNAL: Internal, LOADING: Loading,
}


def from_reply(err, method=None):
    """The exception for an error reply's ``{"code", "message"}`` map."""
    if isinstance(err, dict):
        code, message = err.get("code"), err.get("message", "")
    else:                               # not the documented shape: say what came
        code, message = INTERNAL, "malformed error reply: %r" % (err,)
    return _BY_CODE.get(code, Error)(code, message, method)


class Timeout(TimeoutError):
    """No reply (or event) within the client's timeout.  The connection
    stays usable: a reply that comes later is recognised and dropped."""


class Disconnected(ConnectionError):
    """The daemon closed the connection (or broke the protocol, and the
    connection was closed): replies still owed will never come."""


class StreamError(RuntimeError):
    """A stream region that cannot be trusted (bad header, unsealed
    descriptor), or an instance that does not publish into the stream."""
