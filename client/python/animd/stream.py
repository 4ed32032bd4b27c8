"""Shared-memory pose streams (PROTOCOL.md section 13), read from Python.

The region arrives as a descriptor with ``stream.open``'s reply and is
mapped read-only; a pose is copied out of its slot once (``mmap`` slicing)
under the slot's seqlock and returned as numpy arrays viewing that copy,
so a pose handed out never changes under its holder.  What this follows,
step for step, is client/lib/stream.c, the C reader:

- the header is validated against the mapping's size before any offset in
  it is used, and a copy of it is kept: every offset afterwards comes from
  that copy (what is in shared memory later cannot point us elsewhere);
- the descriptor must be a regular file sealed against shrinking, so that
  no mapped page can vanish under a read (SIGBUS);
- a copy is whole when the slot's ``seq`` is ``2n + 2`` before and after
  it, and its checksum matches; one that raced a rewrite is thrown away
  and retried (16 tries, as the C reader), never returned;
- a pose whose slot names another instance (the channel's previous owner)
  is never returned as this instance's;
- the region's ``epoch`` must be the reply's, and a cursor belongs to one
  instance in one epoch; ``generation`` is reported with every pose.

Ordering: CPython has no fences.  On x86-64, whose loads are not reordered
with other loads, the interpreter's loads of ``seq``, the copy and ``seq``
again happen in program order, which is all a seqlock reader needs.  On a
weakly ordered CPU the checksum is what stands between a mixed copy and the
caller (a copy mixing two poses fails it unless the differences cancel).
"""
import errno
import fcntl
import mmap
import os
import stat
import struct
from typing import Any, Dict, Iterator, Optional, Tuple, Union

from animd._deps import numpy as np

from animd.errors import StreamError
from animd.poses import PoseViews, SPACES

MAGIC = 0x444D4E41
LAYOUT_VERSION = 1
ALIGN = 64
HEADER_BYTES = 256
MAX_CHANNELS = 65536
MAX_SLOTS = 1024
MAX_ELEMENTS = 1 << 20
MAX_REGION_BYTES = 1 << 32
FEATURE_NORMALS = 1
STATE_LIVE, STATE_CLOSED = 1, 2
PAUSED, ENDED, IN_PLACE = 1, 2, 4
STRIDES = {0: 40, 1: 48, 2: 48, 3: 12, 4: 32, 5: 96, 6: 64, 7: 4}
TRIES = 16                              # as STREAM_TRIES in client/lib/stream.c

_HEADER = struct.Struct("<IHHQQQIIIIIIQQIIQI")
_SLOT = struct.Struct("<QQQdQIIqII")
_U64 = struct.Struct("<Q")
_U32 = struct.Struct("<I")
_GOLDEN = 0x9E3779B1


def feature_stride(space: int, features: int) -> int:
    """Section 13's stride of a space with features, 0 when impossible."""
    if features == 0:
        return STRIDES.get(space, 0)
    if space == 3 and features == FEATURE_NORMALS:
        return 24
    return 0


def validate(h: Dict[str, int], mapped: int) -> Optional[str]:
    """animd_shm_validate: the reason a header cannot be trusted, or None."""
    if mapped < HEADER_BYTES:
        return "mapping is smaller than the header"
    if h["magic"] != MAGIC:
        return "bad magic: not an animd stream"
    if h["layout_version"] != LAYOUT_VERSION:
        return "unsupported layout version"
    if (h["header_bytes"] != HEADER_BYTES or h["channels_offset"] < HEADER_BYTES or
            h["channels_offset"] % ALIGN):
        return "bad header size or channel offset"
    if h["region_bytes"] > mapped:
        return "region is larger than the mapping"
    stride = feature_stride(h["space"], h["features"])
    if stride == 0 or h["element_stride"] != stride:
        return "unknown space or features, or wrong element stride"
    n = h["slot_count"]
    if n < 2 or n > MAX_SLOTS or n & (n - 1):
        return "slot count is not a power of two in range"
    if not (0 < h["channel_count"] <= MAX_CHANNELS and 0 < h["max_elements"] <= MAX_ELEMENTS):
        return "channel or element count out of range"
    payload = h["element_stride"] * h["max_elements"]
    if h["slot_bytes"] % ALIGN or h["slot_bytes"] < 64 + payload:
        return "slot too small for its elements"
    if h["channel_bytes"] < 64 + h["slot_bytes"] * n or h["channel_bytes"] % ALIGN:
        return "channel too small for its slots"
    if (h["channels_offset"] > h["region_bytes"] or
            h["channel_bytes"] > (h["region_bytes"] - h["channels_offset"]) // h["channel_count"]):
        return "channels run past the region"
    return None


_FIELDS = ("magic", "layout_version", "header_bytes", "region_bytes", "epoch", "stream_id",
           "space", "element_stride", "max_elements", "channel_count", "slot_count",
           "slot_bytes", "channels_offset", "channel_bytes", "rate_hz", "state", "ticks",
           "features")


class Pose(PoseViews):
    """One whole pose of a stream: ``data`` (read-only float32, one row per
    element) and its views (animd.poses), with the slot's header: ``instance``,
    ``seq`` (the pose's number in its channel), ``tick``, ``clip_time``,
    ``generation``, ``flags``, ``publish_ns`` (the daemon's CLOCK_MONOTONIC),
    ``epoch``, and ``dropped``: for poses(), how many poses of the instance
    were lost just before this one (0 for latest())."""

    __slots__ = ("space", "data", "instance", "seq", "tick", "clip_time", "generation",
                 "flags", "publish_ns", "epoch", "dropped")
    instance: int
    seq: int
    tick: int
    clip_time: float
    generation: int
    flags: int
    publish_ns: int
    epoch: int
    dropped: int

    paused = property(lambda self: bool(self.flags & PAUSED))
    ended = property(lambda self: bool(self.flags & ENDED))
    in_place = property(lambda self: bool(self.flags & IN_PLACE))

    def __repr__(self) -> str:
        return "<animd.Pose instance %d #%d tick %d clip_time %.6f %s %s>" % (
            self.instance, self.seq, self.tick, self.clip_time, self.space, self.data.shape)


class _Cursor:
    __slots__ = ("channel", "next", "started", "dropped_pending")

    def __init__(self, channel: int) -> None:
        self.channel = channel
        self.next = 0
        self.started = False
        self.dropped_pending = 0


def _instance_id(instance: Any) -> int:
    if isinstance(instance, dict):
        instance = instance["instance"]
    return int(instance)


class Stream:
    """A mapped pose stream.  Made by ``Client.stream_open()``; pass it (or
    ``stream.id``) as ``play(..., stream=)``.  ``latest(instance)`` and
    ``poses(instance)`` take an instance id (or ``play``'s result)."""

    def __init__(self, fd: int, reply: Dict[str, Any], client: Any = None) -> None:
        self.reply = dict(reply)
        self.client = client
        self.id = reply["stream"]
        self._hints: Dict[int, int] = {}        # instance -> channel, from play's reply
        self._cursors: Dict[int, _Cursor] = {}
        self._mm: Any = None            # the mmap, None once unmapped
        try:
            self._map(fd, reply)
        finally:
            os.close(fd)

    def _map(self, fd: int, reply: Dict[str, Any]) -> None:
        st = os.fstat(fd)
        try:
            seals = fcntl.fcntl(fd, fcntl.F_GET_SEALS)
        except OSError:
            seals = 0
        if not stat.S_ISREG(st.st_mode) or not seals & fcntl.F_SEAL_SHRINK:
            raise StreamError("the stream's descriptor is not a memfd sealed against shrinking")
        if (st.st_size < HEADER_BYTES or st.st_size > MAX_REGION_BYTES or
                reply.get("region_bytes", 0) > st.st_size):
            raise StreamError("the stream's region has the wrong size")
        mm = mmap.mmap(fd, st.st_size, mmap.MAP_SHARED, mmap.PROT_READ)
        h = dict(zip(_FIELDS, _HEADER.unpack_from(mm, 0)))
        why = validate(h, st.st_size)
        want_normals = bool(reply.get("normals"))
        if why is None and (h["stream_id"] != reply["stream"] or h["epoch"] != reply["epoch"] or
                            SPACES[h["space"]] != reply.get("space") or
                            bool(h["features"] & FEATURE_NORMALS) != want_normals):
            why = "the stream's header does not match the reply"
        if why is not None:
            mm.close()
            raise StreamError(why)
        self._mm = mm
        self.header = h                 # our copy: every offset comes from it
        self.space = SPACES[h["space"]]
        self.epoch = h["epoch"]
        self.channels = h["channel_count"]
        self.depth = h["slot_count"]
        self.max_elements = h["max_elements"]
        self.rate = h["rate_hz"]
        self.region_bytes = h["region_bytes"]
        self._stride = h["element_stride"]
        self._fpe = self._stride // 4
        self._slot_bytes = h["slot_bytes"]
        self._ch0 = h["channels_offset"]
        self._ch_bytes = h["channel_bytes"]
        self._mask = self.depth - 1
        self._words = np.arange(self.max_elements * self._stride // 4, dtype=np.uint32)

    # ---- the region ------------------------------------------------------

    def _channel_at(self, c: int) -> int:
        return self._ch0 + c * self._ch_bytes

    def _published(self, c: int) -> int:
        return _U64.unpack_from(self._mm, self._channel_at(c))[0]

    def _owner(self, c: int) -> int:
        return _U64.unpack_from(self._mm, self._channel_at(c) + 8)[0]

    @property
    def state(self) -> Union[str, int]:
        """``"live"`` or ``"closed"`` (section 13's header ``state``)."""
        self._check_open()
        s = _U32.unpack_from(self._mm, 76)[0]
        return "live" if s == STATE_LIVE else "closed" if s == STATE_CLOSED else s

    @property
    def live(self) -> bool:
        return self.state == "live"

    @property
    def ticks(self) -> int:
        self._check_open()
        return _U64.unpack_from(self._mm, 80)[0]

    def _check_open(self) -> None:
        if self._mm is None:
            raise StreamError("the stream is closed")

    def _read(self, c: int, n: int) -> Any:
        """animd_shm_read plus the checksum: (slot header, bytes) of pose n of
        channel c when the copy is whole, else an errno: EAGAIN (raced a
        rewrite), ESTALE (lapped: no longer in the ring), ENODATA (not yet)."""
        mm = self._mm
        pub = _U64.unpack_from(mm, self._channel_at(c))[0]
        if n >= pub:
            return errno.ENODATA
        if pub - n >= self.depth:
            return errno.ESTALE
        off = self._channel_at(c) + 64 + (n & self._mask) * self._slot_bytes
        want = 2 * n + 2
        if _U64.unpack_from(mm, off)[0] != want:
            return errno.ESTALE
        count = min(_U32.unpack_from(mm, off + 40)[0], self.max_elements)
        raw = mm[off:off + 64 + count * self._stride]      # the one copy
        if _U64.unpack_from(mm, off)[0] != want:
            return errno.EAGAIN
        slot = _SLOT.unpack_from(raw)
        count = min(slot[5], count)
        nw = count * self._fpe
        words = np.frombuffer(raw, np.uint32, nw, 64)
        total = int(np.bitwise_xor(words, self._words[:nw]).sum(dtype=np.uint32))
        if (total + want * _GOLDEN) & 0xFFFFFFFF != slot[8]:
            return errno.EAGAIN
        return slot, raw, count

    def _pose(self, got: Any, n: int, dropped: int) -> "Pose":
        slot, raw, count = got
        p = Pose()
        p.space = self.space
        p.data = np.frombuffer(raw, np.float32, count * self._fpe, 64).reshape(count, self._fpe)
        p.instance = slot[1]
        p.seq = n
        p.tick = slot[2]
        p.clip_time = slot[3]
        p.generation = slot[4]
        p.flags = slot[6]
        p.publish_ns = slot[7]
        p.epoch = self.epoch
        p.dropped = dropped
        return p

    def _newest_is(self, c: int, sid: int) -> bool:
        for _ in range(TRIES):
            pub = self._published(c)
            if pub == 0:
                return False
            got = self._read(c, pub - 1)
            if not isinstance(got, int):
                return got[0][1] == sid
        return False

    def _closed_channel(self, sid: int, hint: Optional[int]) -> Optional[int]:
        """A closed stream frees every channel but keeps the last poses: the
        channel whose newest pose is the instance's, `hint` first."""
        if _U32.unpack_from(self._mm, 76)[0] == STATE_LIVE:
            return None
        if hint is not None and hint < self.channels and self._newest_is(hint, sid):
            return hint
        for c in range(self.channels):
            if self._newest_is(c, sid):
                return c
        return None

    def _cursor(self, sid: int) -> "_Cursor":
        """The cursor of instance sid with the channel it publishes in now."""
        self._check_open()
        cur = self._cursors.get(sid)
        if cur is not None and self._owner(cur.channel) == sid:
            return cur
        hint = self._hints.get(sid)
        c: Optional[int]
        if hint is not None and hint < self.channels and self._owner(hint) == sid:
            c = hint
        else:
            c = next((k for k in range(self.channels) if self._owner(k) == sid), None)
            if c is None:
                c = self._closed_channel(sid, cur.channel if cur is not None else hint)
            if c is None:
                self._cursors.pop(sid, None)
                raise StreamError("instance %d does not publish into stream %d" % (sid, self.id))
        # A channel change starts the order afresh.  Finding the same channel
        # again (a closed stream frees every channel, so each read finds it
        # anew) keeps the cursor, as client/lib/stream.c does.
        if cur is None or cur.channel != c or not cur.started:
            cur = _Cursor(c)
            self._cursors[sid] = cur
        return cur

    # ---- reading ---------------------------------------------------------

    def latest(self, instance: Any) -> Optional["Pose"]:
        """The newest whole pose of an instance (a Pose), or None when it has
        none in the stream yet.  StreamError if the instance does not publish
        here (or the writer lapped every one of 16 copies)."""
        sid = _instance_id(instance)
        c = self._cursor(sid).channel
        for _ in range(TRIES):
            pub = self._published(c)
            if pub == 0:
                return None
            got = self._read(c, pub - 1)
            if isinstance(got, int):
                continue
            if got[0][1] != sid:        # still the previous owner's pose
                return None
            return self._pose(got, pub - 1, 0)
        raise StreamError("every copy of the newest pose raced a rewrite")

    def next(self, instance: Any) -> Optional["Pose"]:
        """The next pose of the instance in publication order, or None when
        there is no newer one yet; ``pose.dropped`` counts those lapped
        before it (the reader was too slow for the ring)."""
        sid = _instance_id(instance)
        cur = self._cursor(sid)
        c = cur.channel
        n, started, lost = cur.next, cur.started, 0
        rc = errno.EAGAIN
        for _ in range(self.depth + TRIES):
            pub = self._published(c)
            oldest = pub - self.depth + 1 if pub >= self.depth else 0
            if not started:
                n, started = oldest, True
            if n >= pub:
                rc = errno.ENODATA
                break
            if n < oldest:
                lost += oldest - n
                n = oldest
            got = self._read(c, n)
            if isinstance(got, int):
                rc = got
                continue
            if got[0][1] != sid:        # a previous owner's pose: not ours
                n += 1
                rc = errno.ENODATA
                continue
            pose = self._pose(got, n, lost + cur.dropped_pending)
            cur.next, cur.started, cur.dropped_pending = n + 1, True, 0
            return pose
        if rc == errno.ENODATA:
            # Nothing new: keep what was skipped, report the loss later.
            cur.next, cur.started = n, started
            cur.dropped_pending += lost
            return None
        raise StreamError("every copy of pose %d raced a rewrite" % n)

    def poses(self, instance: Any) -> Iterator["Pose"]:
        """Every pose of the instance not read yet, in order (an iterator
        that ends when there is no newer one); each carries ``dropped``."""
        while True:
            p = self.next(instance)
            if p is None:
                return
            yield p

    # ---- life ------------------------------------------------------------

    def close(self) -> None:
        """Close it on the daemon (when its client is still open) and unmap
        it.  Poses already read stay valid: they are copies."""
        if self.client is not None and not self.client.closed and self._mm is not None:
            self.client.stream_close(stream=self)
        self.unmap()

    def unmap(self) -> None:
        if self._mm is not None:
            self._mm.close()
            self._mm = None

    def __enter__(self) -> "Stream":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return "<animd.Stream %d %s rate %d channels %d depth %d>" % (
            self.id, self.space, self.rate, self.channels, self.depth)
