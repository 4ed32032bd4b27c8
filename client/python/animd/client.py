"""The control connection: every method of PROTOCOL.md section 9 as a
method of :class:`Client`, keyword arguments named as the protocol's fields.

One vocabulary with libanimclient and animctl: ``a.b`` is ``Client.a_b``
(``animc_a_b``, ``animctl b``), and a method that lists returns the list
(``assets()``, ``instances()``, ``clients()``), as animc_*_list does.

Replies are matched by msgid, never by position (the daemon may answer out
of order); events that arrive meanwhile are queued for :meth:`Client.events`
or handed to ``on_event``.  Results are the protocol's maps as dicts, typed
by :mod:`animd.results` (TypedDicts: a newer daemon's extra fields are
kept), except ``sample`` (an :class:`animd.poses.Sample`, the map with numpy
views) and ``stream_open`` (an :class:`animd.stream.Stream`).
"""
import collections
import os
import sys
import time
from typing import (Any, Callable, Deque, Dict, Iterable, Iterator, List, Optional, Set,
                    Tuple, Union, cast)

from animd import errors
from animd.errors import Disconnected, Timeout
from animd.poses import Sample
from animd.results import (AssetInfo, AssetPage, AssetSummary, ClientInfo, Event, Hello,
                           Instance as InstanceState, Killed, Reload, Stats, Status)
from animd.stream import Stream
from animd.wire import NOTIFICATION, RESPONSE, Wire, default_socket

PROTOCOL_VERSION = 1
EVENT_METHOD = "event"
EVENT_TYPES = ("asset.loaded", "asset.reloaded", "asset.error", "asset.removed",
               "instance.ended", "instance.faded", "layer.ended", "instance.stopped",
               "clip.event", "server.stopping")
MSGID_MAX = 0xFFFFFFFF
# Bytes of hello's "name" (PROTOCOL.md, PROTO_MAX_CLIENT_NAME_BYTES).
NAME_MAX = 64

Result = Dict[str, Any]                 # a protocol map, as decoded
Instance = Union[int, Dict[str, Any]]   # an instance id, or a map that carries one
StreamRef = Union[Stream, int, Dict[str, Any]]


def program_name() -> str:
    """What a client says it is by default: its script's name
    (``sys.argv[0]``'s basename), "python" when there is none (``-c``,
    an interactive session)."""
    argv0 = sys.argv[0] if sys.argv and sys.argv[0] not in ("", "-c", "-") else ""
    return _fit_name(os.path.basename(argv0) or "python")


def _fit_name(name: str) -> str:
    """name cut to NAME_MAX bytes of UTF-8, on a character."""
    data = name.encode("utf-8", "replace")
    return data[:NAME_MAX].decode("utf-8", "ignore")


def _id(value: Any, key: str) -> Any:
    """An id given as itself or as the map that carries it (play's result
    for an instance, a Stream or stream_open's map for a stream)."""
    if isinstance(value, Stream):
        return value.id
    if isinstance(value, dict):
        return value[key]
    return value


def _args(**kw: Any) -> Dict[str, Any]:
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
    of another protocol version.  ``name``: what this client tells the
    daemon it is (``clients()`` and the daemon's log show it), default the
    script's name (:func:`program_name`); "" sends none.  Use as a context
    manager to close it.  One thread at a time: a client is not locked
    (give each thread its own, as each is one session of the daemon's).

    A connection that cannot be made raises :class:`animd.CannotConnect`
    (no socket, no permission, a stale socket), its message saying what to
    do.
    """

    def __init__(self, socket: Optional[str] = None, timeout: Optional[float] = 10.0,
                 on_event: Optional[Callable[[Event], None]] = None, check: bool = True,
                 name: Optional[str] = None) -> None:
        self.socket = socket or default_socket()
        self.timeout = timeout
        self.on_event = on_event
        self.name = program_name() if name is None else _fit_name(name)
        self._wire = Wire(self.socket, timeout)
        self._msgid = 0
        self._waiting: Dict[int, str] = {}          # msgid -> method, replies owed
        self._replies: Dict[int, Tuple[Any, Any, Optional[int]]] = {}   # msgid -> (error, result, fd)
        self._abandoned: Set[int] = set()           # msgids whose caller timed out
        self._events: Deque[Event] = collections.deque()
        self._streams: Dict[int, Stream] = {}       # id -> Stream this client opened
        self._goodbye: Optional[str] = None         # why the daemon closed us (client.killed)
        self.server: Optional[Hello] = None
        if check:
            try:
                self.server = self.hello(name=self.name or None)
            except errors.BadRequest:
                # A daemon from before hello took a name: say hello without.
                try:
                    self.server = self.hello()
                except BaseException:
                    self.close()
                    raise
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
    def closed(self) -> bool:
        return self._wire.closed

    def fileno(self) -> int:
        """The socket, for a caller's own select/poll loop (then process())."""
        return self._wire.fileno()

    def call(self, method: str, **args: Any) -> Any:
        """Any method by its protocol name (``c.call("assets.list")``): its
        result map (a Stream for ``stream.open``)."""
        return self._result(method, self._call(method, args))

    def send(self, method: str, **args: Any) -> int:
        """Send a request without waiting: its msgid, for :meth:`wait`."""
        if self._wire.closed:
            raise Disconnected("the connection is closed")
        self._msgid = self._msgid + 1 if self._msgid < MSGID_MAX else 1
        mid = self._msgid
        self._waiting[mid] = method
        try:
            self._wire.send(mid, method, args)
        except Disconnected as e:
            self._waiting.pop(mid, None)
            # What came before the hang-up (client.killed says why) is
            # still to be read.
            try:
                self._dispatch(self._wire.poll())
            except Disconnected:
                pass
            self._said_goodbye(e)
            raise
        return mid

    def wait(self, msgid: int) -> Any:
        """The reply to a request :meth:`send` sent: its result, or the
        error raised."""
        method = self._waiting.get(msgid, "?")
        return self._result(method, self._take(msgid))

    def _call(self, method: str, args: Dict[str, Any]) -> Tuple[Any, Any, Optional[int]]:
        return self._take(self.send(method, **args))

    def _take(self, msgid: int) -> Tuple[Any, Any, Optional[int]]:
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
            except Disconnected as e:
                self._waiting.pop(msgid, None)
                self._said_goodbye(e)
                raise
            self._dispatch(msgs)
        self._waiting.pop(msgid, None)
        return self._replies.pop(msgid)

    def _said_goodbye(self, e: Disconnected) -> None:
        """An operator closed this connection: say who and why instead."""
        if self._goodbye is not None:
            raise Disconnected("the daemon closed the connection: %s" % self._goodbye) from e

    def _dispatch(self, msgs: List[Any]) -> None:
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

    def _event(self, ev: Event) -> None:
        if ev.get("type") == "client.killed":
            self._goodbye = str(ev.get("message") or "closed by an operator (clients.kill)")
        if self.on_event is not None:
            self.on_event(ev)
        else:
            self._events.append(ev)

    def _result(self, method: str, reply: Tuple[Any, Any, Optional[int]]) -> Any:
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

    def next_event(self, timeout: Optional[float] = None) -> Event:
        """The next event map, waiting up to ``timeout`` seconds (None: the
        client's timeout); :class:`animd.Timeout` when none came."""
        if timeout is None:
            timeout = self.timeout
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._events:
            try:
                self._dispatch(self._wire.receive(deadline))
            except Disconnected as e:
                if self._events:
                    break
                self._said_goodbye(e)
                raise
        return self._events.popleft()

    def events(self, timeout: Optional[float] = None) -> Iterator[Event]:
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

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return "<animd.Client %s%s>" % (self.socket, " closed" if self.closed else "")

    # ---- the methods of PROTOCOL.md section 9 ----------------------------

    def hello(self, name: Optional[str] = None) -> Hello:
        """``hello``; ``name`` (at most 64 bytes) is what this client calls
        itself (the constructor sends :attr:`name`)."""
        return cast(Hello, self.call("hello", **_args(name=name)))

    def status(self) -> Status:
        return cast(Status, self.call("status"))

    ASSETS_PAGE_MAX = 10000             # the most assets one assets.list page holds

    def assets(self) -> List[AssetSummary]:
        """``assets.list``, every asset: the list of ``{asset, format,
        generation, ok, error}`` sorted by name (as ``animc_assets_list``).
        Asked for a page at a time (:meth:`iter_assets`), so that any tree is
        listed; an asset present throughout is listed once while others come
        and go."""
        return list(self.iter_assets(limit=self.ASSETS_PAGE_MAX))

    def assets_page(self, cursor: Optional[str] = None,
                    limit: Optional[int] = None) -> AssetPage:
        """One page of ``assets.list``: at most ``limit`` assets (1 to 10000,
        default the daemon's 1000) whose names sort after ``cursor`` (None
        for the first page), and the ``cursor`` of the next page (None after
        the last).  A page may hold fewer than ``limit`` while more follow:
        follow the cursor, never the count."""
        return cast(AssetPage, self.call("assets.list", cursor=cursor or "", **_args(limit=limit)))

    def iter_assets(self, limit: Optional[int] = None) -> Iterator[AssetSummary]:
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

    def info(self, asset: str) -> AssetInfo:
        """``assets.info``: what ``animd inspect --json`` prints, and more."""
        return cast(AssetInfo, self.call("assets.info", asset=asset))

    def reload(self, asset: str) -> Reload:
        """``assets.reload``: answered once the load has finished, with the
        live ``generation`` and whether the file was ``unchanged``."""
        return cast(Reload, self.call("assets.reload", asset=asset))

    assets_list, assets_info, assets_reload = assets, info, reload

    def play(self, asset: Optional[str] = None, clip: Optional[str] = None,
             mesh: Optional[str] = None, loop: Optional[str] = None,
             speed: Optional[float] = None, start: Optional[float] = None,
             root_motion: Optional[str] = None, stream: Optional[StreamRef] = None,
             instance: Optional[Instance] = None, fade: Optional[float] = None,
             sync: Optional[bool] = None, at_ns: Optional[int] = None,
             events: Optional[bool] = None, at: Optional[int] = None) -> InstanceState:
        """A new instance, or with ``instance`` a switch of that one to
        another clip.  ``stream``: a Stream (or its id) to publish into.
        ``at_ns``: the daemon's ``CLOCK_MONOTONIC`` in nanoseconds
        (``time.monotonic_ns()`` on the same machine) at which the playback
        time is ``start`` (the wire's ``at``; ``animc_play_opts.at_ns``;
        ``at=`` is its old name here); instances played with one ``at_ns``
        are in step.  ``events``: whether the instance sends ``clip.event``
        (the moments of its clip's events playback passes, to a client
        subscribed to them); None is the daemon's default, true for a new
        instance and unchanged on a switch."""
        if at is not None and at_ns is not None and at != at_ns:
            raise TypeError("play: at_ns and its old name at differ: give one")
        sid = _id(stream, "stream")
        res = self.call("play", **_args(asset=asset, clip=clip, mesh=mesh, loop=loop,
                                        speed=speed, start=start, root_motion=root_motion,
                                        stream=sid, instance=_id(instance, "instance"),
                                        fade=fade, sync=sync,
                                        at=at_ns if at_ns is not None else at, events=events))
        s = self._streams.get(res.get("stream"))
        if s is not None and "channel" in res:
            s._hints[res["instance"]] = res["channel"]
        return cast(InstanceState, res)

    def pause(self, instance: Instance, any: Optional[bool] = None) -> InstanceState:
        """Freeze the instance's clock.  ``any``: another connection's
        instance too (an operator's: PROTOCOL.md section 1, "Operators";
        :class:`animd.PermissionDenied` for a peer that may not)."""
        return cast(InstanceState, self.call("pause", **_args(instance=_id(instance, "instance"),
                                                              any=any)))

    def resume(self, instance: Instance, any: Optional[bool] = None) -> InstanceState:
        """Continue the instance's clock; ``any`` as for :meth:`pause`."""
        return cast(InstanceState, self.call("resume", **_args(instance=_id(instance, "instance"),
                                                               any=any)))

    def seek(self, instance: Instance, time: float) -> InstanceState:
        return cast(InstanceState, self.call("seek", instance=_id(instance, "instance"),
                                             time=time))

    def speed(self, instance: Instance, speed: float) -> InstanceState:
        return cast(InstanceState, self.call("speed", instance=_id(instance, "instance"),
                                             speed=speed))

    def stop(self, instance: Instance, any: Optional[bool] = None) -> InstanceState:
        """End the instance.  ``any``: another connection's too (an
        operator's, as for :meth:`pause`): its owner is sent
        ``instance.stopped`` with reason ``operator``."""
        return cast(InstanceState, self.call("stop", **_args(instance=_id(instance, "instance"),
                                                             any=any)))

    def instances(self, all: Optional[bool] = None) -> List[InstanceState]:
        """``instances.list``: this connection's instance states, as a list
        (``animc_instances_list``).  ``all``: every connection's, each with
        its owner's ``connection`` id and ``client`` name."""
        return cast(List[InstanceState],
                    self.call("instances.list", **_args(all=all)).get("instances", []))

    instances_list = instances

    def clients(self) -> List[ClientInfo]:
        """``clients.list``: every connection (id, hello name, pid, uid,
        gid, since, age, what it owns and sends), as a list
        (``animc_clients_list``, ``animctl clients``)."""
        return cast(List[ClientInfo], self.call("clients.list").get("clients", []))

    clients_list = clients

    def clients_kill(self, connection: Union[int, Dict[str, Any]],
                     reason: Optional[str] = None) -> Killed:
        """``clients.kill``: close another connection (its instances stop,
        its streams close), telling it who did and ``reason``; an
        operator's (:class:`animd.PermissionDenied` for a peer that may
        not).  ``connection``: its id, or its map from :meth:`clients`."""
        return cast(Killed, self.call("clients.kill", **_args(
            connection=_id(connection, "connection"), reason=reason)))

    def layer_add(self, instance: Instance, asset: Optional[str] = None,
                  clip: Optional[str] = None, weight: Optional[float] = None,
                  fade: Optional[float] = None, mode: Optional[str] = None,
                  mask: Optional[List[Dict[str, Any]]] = None, speed: Optional[float] = None,
                  start: Optional[float] = None, loop: Optional[str] = None,
                  reference: Optional[Dict[str, Any]] = None) -> InstanceState:
        return self.call("layer.add", **_args(instance=_id(instance, "instance"), asset=asset,
                                              clip=clip, weight=weight, fade=fade, mode=mode,
                                              mask=mask, speed=speed, start=start, loop=loop,
                                              reference=reference))

    def layer_set(self, instance: Instance, layer: Union[int, Result], weight: Optional[float] = None,
                  fade: Optional[float] = None) -> InstanceState:
        return self.call("layer.set", **_args(instance=_id(instance, "instance"),
                                              layer=_id(layer, "layer"), weight=weight,
                                              fade=fade))

    def layer_remove(self, instance: Instance, layer: Union[int, Result],
                     fade: Optional[float] = None) -> InstanceState:
        return self.call("layer.remove", **_args(instance=_id(instance, "instance"),
                                                 layer=_id(layer, "layer"), fade=fade))

    def sample(self, asset: str, time: Optional[float] = None, clip: Optional[str] = None,
               space: Optional[str] = None, mesh: Optional[str] = None,
               loop: Optional[str] = None, root_motion: Optional[str] = None,
               layers: Optional[List[Dict[str, Any]]] = None, bind: Optional[bool] = None,
               skin_weights: Optional[bool] = None) -> Sample:
        """One pose, as a :class:`animd.poses.Sample`: the reply's map, with
        the pose as numpy arrays (``s.joints`` (n, 3, 4) in model space, ...).
        ``time`` is required but with ``bind=True``, the skeleton's bind
        pose (no clip); ``skin_weights=True`` (vertices space) adds each mesh's
        ``skin_weights`` map: ``counts`` per vertex, then ``joints`` and
        ``values``, vertex after vertex."""
        return Sample(self.call("sample", **_args(asset=asset, time=time, clip=clip,
                                                  space=space, mesh=mesh, loop=loop,
                                                  root_motion=root_motion, layers=layers,
                                                  bind=bind, skin_weights=skin_weights)))

    def subscribe(self, events: Union[str, Iterable[str]]) -> Result:
        """Which events to receive (names of EVENT_TYPES), replacing the set."""
        if isinstance(events, str):
            events = [events]
        return self.call("subscribe", events=list(events))

    def stream_open(self, space: str, rate: Optional[int] = None, instances: Optional[int] = None,
                    joints: Optional[int] = None, depth: Optional[int] = None,
                    normals: Optional[bool] = None) -> Stream:
        """A shared-memory stream (a :class:`animd.stream.Stream`), mapped."""
        return cast(Stream, self.call("stream.open", **_args(
            space=space, rate=rate, instances=instances, joints=joints, depth=depth,
            normals=normals)))

    def stream_close(self, stream: StreamRef) -> Result:
        """Close a stream on the daemon; the mapping stays until unmapped
        (``Stream.close()`` does both)."""
        sid = _id(stream, "stream")
        res = self.call("stream.close", stream=sid)
        return res

    def stats(self) -> Stats:
        return cast(Stats, self.call("stats"))

    def monitor(self) -> Result:
        """Make this connection a monitor: ``monitor.request`` events follow."""
        return self.call("monitor")
