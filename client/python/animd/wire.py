"""The wire (PROTOCOL.md sections 1-3): msgpack-RPC over a Unix stream
socket, and the descriptors that ride on it.

A connection is a byte stream of concatenated msgpack objects.  Every read
is a ``recvmsg`` with room for ancillary data, because ``stream.open``'s
reply brings the stream's descriptor as ``SCM_RIGHTS`` on its first byte
and a plain ``recv`` would silently discard it.  Descriptors are queued in
the order they arrive; the n-th successful ``stream.open`` reply decoded
takes the n-th descriptor, which is the order the daemon sent them in.
"""
import array
import collections
import os
import select
import socket
import time
from typing import Any, Deque, Dict, List, Optional

from animd._deps import msgpack
from animd.errors import Disconnected, Timeout, connect_error

REQUEST, RESPONSE, NOTIFICATION = 0, 1, 2

# PROTOCOL.md section 1: $ANIMD_SOCKET, else the system socket (as animctl).
SOCKET_DEFAULT = "/run/animd/animd.sock"
SOCKET_ENV = "ANIMD_SOCKET"
# Section 5: the daemon never sends a larger message.
MAX_REPLY_BYTES = 16 << 20
MAX_FDS = 16                            # per recvmsg: more than one reply's worth


def _plain(obj: Any) -> Any:
    """msgpack's fallback: numpy scalars and arrays (a time from
    np.linspace, a float32 out of a pose) go as the numbers they hold."""
    item = getattr(obj, "tolist", None)
    if item is not None:
        return item()
    raise TypeError("cannot send %r: not a msgpack type" % (obj,))


def default_socket() -> str:
    """$ANIMD_SOCKET when set and not empty, else /run/animd/animd.sock."""
    return os.environ.get(SOCKET_ENV) or SOCKET_DEFAULT


class Wire:
    """One connection: send requests, receive whole messages and fds."""

    def __init__(self, path: str, timeout: Optional[float]) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.sock.settimeout(timeout)
            self.sock.connect(path)
            self.sock.setblocking(False)
        except OSError as e:
            self.sock.close()
            # The package's own, saying what to do (errors.connect_error).
            err = connect_error(path, e)
            if err is e:
                raise
            raise err from None
        except BaseException:
            self.sock.close()
            raise
        self.path = path
        self.unpacker = msgpack.Unpacker(raw=False, max_buffer_size=MAX_REPLY_BYTES + 65536)
        self.fds: Deque[int] = collections.deque()
        self.closed = False
        self._fdbuf = socket.CMSG_SPACE(MAX_FDS * array.array("i").itemsize)

    def fileno(self) -> int:
        return self.sock.fileno()

    def send(self, msgid: int, method: str, args: Dict[str, Any]) -> None:
        """Send ``[0, msgid, method, [args]]`` (``[]`` for no arguments)."""
        data = msgpack.packb([REQUEST, msgid, method, [args] if args else []],
                             use_bin_type=True, default=_plain)
        view = memoryview(data)
        while view:
            try:
                n = self.sock.send(view)
            except BlockingIOError:
                select.select([], [self.sock], [])
                continue
            except OSError as e:
                raise Disconnected("cannot send to %s: %s" % (self.path, e)) from None
            view = view[n:]

    def receive(self, deadline: Optional[float]) -> List[Any]:
        """Wait until data comes (or ``deadline``, a time.monotonic() value or
        None for ever), then return every whole message decoded so far."""
        while True:
            msgs = list(self.unpacker)
            if msgs:
                return msgs
            if self.closed:
                raise Disconnected("the daemon closed the connection")
            wait = None if deadline is None else deadline - time.monotonic()
            if wait is not None and wait <= 0:
                raise Timeout("no reply from %s in time" % self.path)
            # Wait first: just after a request its reply is rarely in yet,
            # and a recvmsg that fails costs more than the select saves.
            if select.select([self.sock], [], [], wait)[0]:
                self._read()

    def poll(self) -> List[Any]:
        """Whole messages already readable, without waiting."""
        while not self.closed and self._read():
            pass
        return list(self.unpacker)

    def _read(self) -> bool:
        """One recvmsg: True when it read something (or the end)."""
        try:
            data, anc, flags, _ = self.sock.recvmsg(1 << 16, self._fdbuf,
                                                   socket.MSG_CMSG_CLOEXEC)
        except (BlockingIOError, InterruptedError):
            return False
        except OSError as e:
            self.closed = True
            raise Disconnected("reading %s: %s" % (self.path, e)) from None
        for level, kind, payload in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds = array.array("i")
                fds.frombytes(payload[:len(payload) - len(payload) % fds.itemsize])
                self.fds.extend(fds)
        if flags & socket.MSG_CTRUNC:
            # The kernel closed descriptors it had no room for: the queue's
            # order can no longer be trusted, so no stream can be.
            self.close()
            raise Disconnected("descriptors were truncated by the kernel")
        if not data:
            self.closed = True
        else:
            self.unpacker.feed(data)
        return True

    def take_fd(self) -> Optional[int]:
        """The oldest descriptor received and not yet taken, or None."""
        return self.fds.popleft() if self.fds else None

    def close(self) -> None:
        while self.fds:
            os.close(self.fds.popleft())
        if self.sock.fileno() >= 0:
            self.sock.close()
        self.closed = True
