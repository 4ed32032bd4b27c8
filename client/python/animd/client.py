"""The control connection: every method of PROTOCOL.md section 9 as a
method of :class:`Client`, keyword arguments named as the protocol's fields.

Replies are matched by msgid, never by position (the daemon may answer out
of order); events that arrive meanwhile are queued for :meth:`Client.events`
or handed to ``on_event``.  Results are the protocol's maps as dicts, except
``sample`` (an :class:`animd.poses.Sample`, the map with numpy views) and
``stream_open`` (an :class:`animd.stream.Stream`).
"""
import collections
import os
import time
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Union

from animd import errors
from animd.errors import Disconnected, Timeout
from animd.poses import Sample
from animd.stream import Stream
from animd.wire import NOTIFICATION, RESPONSE, Wire, default_socket

PROTOCOL_VERSION = 1
EVENT_METHOD = "event"
EVENT_TYPES = ("asset.loaded", "asset.reloaded", "asset.error", "asset.removed",
               "instance.ended", "instance.faded", "layer.ended", "instance.stopped",
               "clip.event", "server.stopping")
MSGID_MAX = 0xFFFFFFFF

Result = Dict[str, Any]                 # a protocol map, as decoded
Instance = Union[int, Dict[str, Any]]   # an instance id, or a map that carries one
StreamRef = Union[Stream, int, Dict[str, Any]]


def _id(value, key):
    """An id given as itself or as the map that carries it (play's result
    for an instance, a Stream or stream_open's map for a stream)."""
    if isinstance(value, Stream):
        return value.id
    if isinstance(value, dict):
        return value[key]
    return value


def _args(**kw):
    """Named arguments without the ones left out (None means left out)."""
    return {k: v for k, v in kw.items() if v is not None}


class Client:
    """A connection to animd.

    ``socket``: the socket's path, default ``$ANIMD_SOCKET`` or
    ``/run/animd/animd.sock`` (as animctl).  ``timeout``: seconds to wait
    for a reply (None: for ever), raising :class:`animd.Timeout`.
    ``on_event``: a callable given each event map as it arrives (while a
    call waits, or in :meth:`process`); without it events are queued for
    :meth:`events`.  ``check``: call ``hello`` at once and refuse a daemon
    of another protocol version.  Use as a context manager to close it.
    One thread at a time: a client is not locked (give each thread its own,
    as each is one session of the daemon's).
    """

    def __init__(self, socket: Optional[str] = None, timeout: Optional[float] = 10.0,
                 on_event: Optional[Callable[[Result], None]] = None, check: bool = True):
        self.socket = socket or default_socket()
        self.timeout = timeout
        self.on_event = on_event
        self._wire = Wire(self.socket, timeout)
        self._msgid = 0
        self._waiting = {}              # msgid -> method, replies owed
        self._replies = {}              # msgid -> (error, result, fd)
        self._abandoned = set()         # msgids whose caller timed out
        self._events = collections.deque()
        self._streams = {}              # id -> Stream this client opened
        self.server = None
        if check:
            try:
                self.server = self.hello()
            except BaseException:
                self.close()
                raise
            if self.server.get("protocol") != PROTOCOL_VERSION:
                self.close()
                raise errors.Error("unsupported", "the daemon speaks protocol %r, this "
                                   "client %d" % (self.server.get("protocol"),
                                                  PROTOCOL_VERSION), "hello")

    # ---- the machinery ---------------------------------------------------

    @property
    def closed(self):
        return self._wire.closed

    def fileno(self):
        """The socket, for a caller's own select/poll loop (then process())."""
        return self._wire.fileno()

    def call(self, method: str, **args: Any) -> Result:
        """Any method by its protocol name (``c.call("assets.list")``)."""
        return self._result(method, self._call(method, args))

    def send(self, method: str, **args: Any) -> int:
        """Send a request without waiting: its msgid, for :meth:`wait`."""
        if self._wire.closed:
            raise Disconnected("the connection is closed")
        self._msgid = self._msgid + 1 if self._msgid < MSGID_MAX else 1
        mid = self._msgid
        self._waiting[mid] = method
        self._wire.send(mid, method, args)
        return mid

    def wait(self, msgid: int) -> Any:
        """The reply to a request :meth:`send` sent: its result, or the
        error raised."""
        method = self._waiting.get(msgid, "?")
        return self._result(method, self._take(msgid))

    def _call(self, method, args):
        return self._take(self.send(method, **args))

    def _take(self, msgid):
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        while msgid not in self._replies:
            if msgid not in self._waiting or msgid in self._abandoned:
                raise KeyError("msgid %d was not sent, or its reply was taken" % msgid)
            try:
                msgs = self._wire.receive(deadline)
            except Timeout:
                # Its reply may come later: it is then recognised and dropped.
                self._abandoned.add(msgid)
                raise
            except Disconnected:
                self._waiting.pop(msgid, None)
                raise
            self._dispatch(msgs)
        self._waiting.pop(msgid, None)
        return self._replies.pop(msgid)

    def _dispatch(self, msgs):
        for m in msgs:
            if not isinstance(m, list) or not m:
                continue
            if m[0] == RESPONSE and len(m) == 4:
                mid, err, res = m[1], m[2], m[3]
                method = self._waiting.get(mid)
                if method is None:
                    continue            # not a msgid of ours: nothing to match
                # Every successful stream.open reply carries one descriptor;
                # one whose caller gave up must still be taken (and closed)
                # to keep the queue in order.
                fd = self._wire.take_fd() if err is None and method == "stream.open" else None
                if mid in self._abandoned:
                    self._abandoned.discard(mid)
                    del self._waiting[mid]
                    if fd is not None:
                        os.close(fd)
                    continue
                self._replies[mid] = (err, res, fd)
            elif m[0] == NOTIFICATION and len(m) == 3 and m[1] == EVENT_METHOD:
                params = m[2]
                if isinstance(params, list) and params and isinstance(params[0], dict):
                    self._event(params[0])

    def _event(self, ev):
        if self.on_event is not None:
            self.on_event(ev)
        else:
            self._events.append(ev)

    def _result(self, method, reply):
        err, res, fd = reply
        if err is not None:
            raise errors.from_reply(err, method)
        if method == "stream.open":
            if fd is None:
                raise errors.StreamError("stream.open's reply came without its descriptor")
            s = Stream(fd, res, self)
            self._streams[s.id] = s
            return s
        return res if res is not None else {}

    def process(self) -> None:
        """Read what has arrived without waiting: events go to ``on_event``
        or the queue.  For a caller's own loop, when fileno() is readable."""
        self._dispatch(self._wire.poll())

    def next_event(self, timeout: Optional[float] = None) -> Result:
        """The next event map, waiting up to ``timeout`` seconds (None: the
        client's timeout); :class:`animd.Timeout` when none came."""
        if timeout is None:
            timeout = self.timeout
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._events:
            self._dispatch(self._wire.receive(deadline))
        return self._events.popleft()

    def events(self, timeout: Optional[float] = None) -> Iterator[Result]:
        """Iterate over events as they arrive.  With ``timeout``, the
        iteration ends once no event came for that many seconds; without,
        it waits for ever (and ends when the daemon closes the connection)."""
        while True:
            if not self._events:
                deadline = None if timeout is None else time.monotonic() + timeout
                try:
                    self._dispatch(self._wire.receive(deadline))
                except Timeout:
                    return
                except Disconnected:
                    if not self._events:
                        return
                continue
            yield self._events.popleft()

    def close(self) -> None:
        """Close the connection (the daemon ends this connection's instances
        and streams) and unmap the streams it opened."""
        for s in list(self._streams.values()):
            s.unmap()
        self._streams.clear()
        self._wire.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return "<animd.Client %s%s>" % (self.socket, " closed" if self.closed else "")

    # ---- the methods of PROTOCOL.md section 9 ----------------------------

    def hello(self) -> Result:
        return self.call("hello")

    def status(self) -> Result:
        return self.call("status")

    ASSETS_PAGE_MAX = 10000             # the most assets one assets.list page holds

    def assets(self) -> Result:
        """``assets.list``, every asset: ``{"assets": [{asset, format,
        generation, ok, error}]}`` sorted by name.  Asked for a page at a time
        (:meth:`iter_assets`), so that any tree is listed; an asset present
        throughout is listed once while others come and go."""
        return {"assets": list(self.iter_assets(limit=self.ASSETS_PAGE_MAX)), "cursor": None}

    def assets_page(self, cursor: Optional[str] = None, limit: Optional[int] = None) -> Result:
        """One page of ``assets.list``: at most ``limit`` assets (1 to 10000,
        default the daemon's 1000) whose names sort after ``cursor`` (None
        for the first page), and the ``cursor`` of the next page (None after
        the last).  A page may hold fewer than ``limit`` while more follow:
        follow the cursor, never the count."""
        return self.call("assets.list", cursor=cursor or "", **_args(limit=limit))

    def iter_assets(self, limit: Optional[int] = None) -> Iterator[Result]:
        """Every asset's map, in name order, fetched a page of ``limit`` at a
        time as the iteration goes.  A daemon from before paging refuses
        the page's arguments (bad_request): its whole list is then asked for
        at once."""
        if limit is not None and not 1 <= limit <= self.ASSETS_PAGE_MAX:
            raise ValueError("limit must be 1 to %d, not %r" % (self.ASSETS_PAGE_MAX, limit))
        cursor = None
        while True:
            try:
                page = self.assets_page(cursor, limit)
            except errors.BadRequest:
                if cursor is not None:
                    raise
                yield from self.call("assets.list").get("assets", [])
                return
            yield from page.get("assets", [])
            cursor = page.get("cursor")
            if cursor is None:
                return

    def info(self, asset: str) -> Result:
        """``assets.info``: what ``animd inspect --json`` prints, and more."""
        return self.call("assets.info", asset=asset)

    def reload(self, asset: str) -> Result:
        """``assets.reload``: answered once the load has finished."""
        return self.call("assets.reload", asset=asset)

    assets_list, assets_info, assets_reload = assets, info, reload

    def play(self, asset: Optional[str] = None, clip: Optional[str] = None,
             mesh: Optional[str] = None, loop: Optional[str] = None,
             speed: Optional[float] = None, start: Optional[float] = None,
             root_motion: Optional[str] = None, stream: Optional[StreamRef] = None,
             instance: Optional[Instance] = None, fade: Optional[float] = None,
             sync: Optional[bool] = None, at: Optional[int] = None,
             events: Optional[bool] = None) -> Result:
        """A new instance, or with ``instance`` a switch of that one to
        another clip.  ``stream``: a Stream (or its id) to publish into.
        ``at``: ``time.monotonic_ns()`` at which the playback time is
        ``start``; instances played with one ``at`` are in step.
        ``events``: whether the instance sends ``clip.event`` (the moments
        of its clip's events playback passes, to a client subscribed to
        them); None is the daemon's default, true for a new instance and
        unchanged on a switch."""
        sid = _id(stream, "stream")
        res = self.call("play", **_args(asset=asset, clip=clip, mesh=mesh, loop=loop,
                                        speed=speed, start=start, root_motion=root_motion,
                                        stream=sid, instance=_id(instance, "instance"),
                                        fade=fade, sync=sync, at=at, events=events))
        s = self._streams.get(res.get("stream"))
        if s is not None and "channel" in res:
            s._hints[res["instance"]] = res["channel"]
        return res

    def pause(self, instance: Instance) -> Result:
        return self.call("pause", instance=_id(instance, "instance"))

    def resume(self, instance: Instance) -> Result:
        return self.call("resume", instance=_id(instance, "instance"))

    def seek(self, instance: Instance, time: float) -> Result:
        return self.call("seek", instance=_id(instance, "instance"), time=time)

    def speed(self, instance: Instance, speed: float) -> Result:
        return self.call("speed", instance=_id(instance, "instance"), speed=speed)

    def stop(self, instance: Instance) -> Result:
        return self.call("stop", instance=_id(instance, "instance"))

    def instances(self) -> Result:
        """``instances.list``: ``{"instances": [instance state, ...]}``."""
        return self.call("instances.list")

    instances_list = instances

    def layer_add(self, instance: Instance, asset: Optional[str] = None,
                  clip: Optional[str] = None, weight: Optional[float] = None,
                  fade: Optional[float] = None, mode: Optional[str] = None,
                  mask: Optional[List[Dict[str, Any]]] = None, speed: Optional[float] = None,
                  start: Optional[float] = None, loop: Optional[str] = None,
                  reference: Optional[Dict[str, Any]] = None) -> Result:
        return self.call("layer.add", **_args(instance=_id(instance, "instance"), asset=asset,
                                              clip=clip, weight=weight, fade=fade, mode=mode,
                                              mask=mask, speed=speed, start=start, loop=loop,
                                              reference=reference))

    def layer_set(self, instance: Instance, layer: Union[int, Result], weight: Optional[float] = None,
                  fade: Optional[float] = None) -> Result:
        return self.call("layer.set", **_args(instance=_id(instance, "instance"),
                                              layer=_id(layer, "layer"), weight=weight,
                                              fade=fade))

    def layer_remove(self, instance: Instance, layer: Union[int, Result],
                     fade: Optional[float] = None) -> Result:
        return self.call("layer.remove", **_args(instance=_id(instance, "instance"),
                                                 layer=_id(layer, "layer"), fade=fade))

    def sample(self, asset: str, time: float, clip: Optional[str] = None,
               space: Optional[str] = None, mesh: Optional[str] = None,
               loop: Optional[str] = None, root_motion: Optional[str] = None,
               layers: Optional[List[Dict[str, Any]]] = None) -> Sample:
        """One pose, as a :class:`animd.poses.Sample`: the reply's map, with
        the pose as numpy arrays (``s.joints`` (n, 3, 4) in model space, ...)."""
        return Sample(self.call("sample", **_args(asset=asset, time=time, clip=clip,
                                                  space=space, mesh=mesh, loop=loop,
                                                  root_motion=root_motion, layers=layers)))

    def subscribe(self, events: Union[str, Iterable[str]]) -> Result:
        """Which events to receive (names of EVENT_TYPES), replacing the set."""
        if isinstance(events, str):
            events = [events]
        return self.call("subscribe", events=list(events))

    def stream_open(self, space: str, rate: Optional[int] = None, instances: Optional[int] = None,
                    joints: Optional[int] = None, depth: Optional[int] = None,
                    normals: Optional[bool] = None) -> Stream:
        """A shared-memory stream (a :class:`animd.stream.Stream`), mapped."""
        return self.call("stream.open", **_args(space=space, rate=rate, instances=instances,
                                                joints=joints, depth=depth, normals=normals))

    def stream_close(self, stream: StreamRef) -> Result:
        """Close a stream on the daemon; the mapping stays until unmapped
        (``Stream.close()`` does both)."""
        sid = _id(stream, "stream")
        res = self.call("stream.close", stream=sid)
        return res

    def stats(self) -> Result:
        return self.call("stats")

    def monitor(self) -> Result:
        """Make this connection a monitor: ``monitor.request`` events follow."""
        return self.call("monitor")
