"""The live link: one connection to the daemon, and per linked armature an
instance playing into a shared-memory stream of its own (or another
client's instance, followed), posed from a ``bpy.app.timers`` callback.

The callback (:func:`tick`, :meth:`Session.step`) never waits: it reads the
events that have arrived (``Client.process``), the newest pose of each
instance from its stream (``Stream.latest``; every pose in order while
recording, ``Stream.poses``), writes the bones' ``matrix_basis`` and
returns the interval to the next call.  Requests it makes (a remap after a
reload, a poll of a followed instance) are answered within the client's
short timeout.

Following another client's instance: a stream carries only its owner's
instances, so the link polls ``instances.list`` with ``all`` (every quarter
of a second), keeps the instance's state (asset, clip, mesh, time, speed,
loop, layers) and between polls asks ``sample`` for the pose at the time
the instance has reached since, its layers included.  Seek, speed and
cross-fades are its owner's; an operator may pause and resume it.

When the connection drops (``Disconnected``, a stream the daemon closed,
``server.stopping``) the link says so and reconnects every ``retry``
seconds; once back it opens the streams again and plays each instance from
where it was, at its speed, paused if it was.  On ``asset.reloaded`` of the
skeleton or the clip's asset (and whenever a pose carries a new
generation) the joints are mapped to the bones again by name; an instance
the daemon stopped because the skeleton changed is played again on the new
one.
"""
import time

import numpy as np

from . import record, source
from .pose import Rig

POLL_S = 0.25                   # how often a followed instance is asked for
DEPTH = 64                      # stream slots per channel: a second at 60 Hz
EVENTS = ["asset.reloaded", "asset.removed", "asset.error", "instance.stopped",
          "instance.ended", "instance.faded", "server.stopping"]


class Link:
    """One armature driven by the daemon."""

    def __init__(self, session, ob):
        self.session = session
        self.object_name = ob.name
        self.rig = Rig(ob)
        props = self.rig.props
        self.source = props["source"]
        self.mesh = props.get("mesh") or None
        self.skeleton = {"format": props.get("format"), "source": self.source,
                         "mesh_arg": self.mesh}
        self.mode = None                # "play" or "follow"
        self.asset = self.clip = self.loop = None
        self.speed = 1.0
        self.paused = False
        self.instance = None            # this connection's instance id
        self.stream = None
        self.follow_id = None           # another connection's instance id
        self.follow_state = None
        self.follow_at = 0.0            # time.monotonic() of that state
        self.clip_time = None           # of the pose on the armature
        self.time = 0.0                 # playback time, for replaying
        self.generation = None
        self.seq = None
        self.take = None                # record.Take while recording
        self.note = ""
        self.clips = []

    # ---- what the daemon has -------------------------------------------

    def refresh(self):
        """Joints mapped to bones and the clips listed, from the daemon's
        skeleton now.  Returns the bones left without a joint."""
        cat = self.session.catalog
        cat.forget(self.source)
        missing = self.rig.map_joints([n for n, _ in source.joints_of(cat.info(self.source))])
        self.clips = source.clips(cat, self.skeleton)
        if missing:
            self.note = "no joint for bone%s %s: they keep their rest pose" % (
                "s" if len(missing) > 1 else "", ", ".join(missing[:5]))
        return missing

    # ---- playing --------------------------------------------------------

    def _open_stream(self):
        c = self.session.client
        if self.stream is not None:
            try:
                self.stream.close()
            except Exception:           # noqa: BLE001  (a dead one is let go)
                self.stream.unmap()
        n = max(2 * len(self.rig.names), 64)
        self.stream = c.stream_open(space="model", rate=self.session.rate, instances=1,
                                    joints=n, depth=DEPTH)

    def _take_over(self):
        """The link drives the armature: an action on it would win over
        the pose, so it comes off (kept in the file by a fake user)."""
        import bpy
        ob = bpy.data.objects.get(self.object_name)
        ad = ob.animation_data if ob is not None else None
        if ad is not None and ad.action is not None:
            ad.action.use_fake_user = True
            ad.action = None

    def play(self, asset, clip, start=None, speed=None, loop=None, paused=None):
        """Play clip of asset (this connection's instance), or switch the
        instance to it at once."""
        self._take_over()
        c = self.session.client
        self.follow_id = self.follow_state = None
        if speed is not None:
            self.speed = speed
        if self.instance is not None and self.stream is not None:
            st = c.play(instance=self.instance, asset=asset, clip=clip, fade=0.0,
                        speed=self.speed, start=start, loop=loop)
        else:
            self._open_stream()
            st = c.play(asset=asset, clip=clip, mesh=self.mesh, stream=self.stream,
                        speed=self.speed, start=start, loop=loop)
            self.instance = st["instance"]
        self.mode, self.asset, self.clip, self.loop = "play", asset, clip, loop
        self.paused = False
        if paused:
            self.pause()
        self.note = ""
        return st

    def crossfade(self, asset, clip, fade, sync=False):
        self._own("cross-fade")
        c = self.session.client
        st = c.play(instance=self.instance, asset=asset, clip=clip, fade=fade,
                    sync=sync or None)
        self.asset, self.clip = asset, clip
        return st

    def pause(self):
        if self.mode == "follow":
            self.session.client.pause(instance=self.follow_id, any=True)
        else:
            self.session.client.pause(instance=self.instance)
        self.paused = True

    def resume(self):
        if self.mode == "follow":
            self.session.client.resume(instance=self.follow_id, any=True)
        else:
            self.session.client.resume(instance=self.instance)
        self.paused = False

    def _own(self, what):
        if self.mode != "play" or self.instance is None:
            raise ValueError("%s: %s" % (what, "a followed instance is its owner's to steer"
                                         if self.mode == "follow" else "nothing plays"))

    def seek(self, t):
        self._own("seek")
        self.session.client.seek(instance=self.instance, time=t)
        self.time = t

    def set_speed(self, speed):
        self._own("speed")
        self.session.client.speed(instance=self.instance, speed=speed)
        self.speed = speed

    def stop(self):
        c = self.session.client
        if c is not None and not c.closed:
            try:
                if self.instance is not None:
                    c.stop(instance=self.instance)
                if self.stream is not None:
                    self.stream.close()
            except Exception:           # noqa: BLE001  (closing what may be gone)
                pass
        if self.stream is not None:
            self.stream.unmap()
        self.instance = self.stream = None
        self.mode = None
        self.follow_id = self.follow_state = None

    def follow(self, instance_id):
        """Show another connection's instance (instances.list with all)."""
        self.stop()
        self._take_over()
        self.mode, self.follow_id = "follow", int(instance_id)
        self.follow_at = 0.0
        self.note = ""
        self._poll(time.monotonic())

    # ---- each tick ------------------------------------------------------

    def update(self, bpy, now):
        ob = bpy.data.objects.get(self.object_name)
        if ob is None or ob.type != "ARMATURE":
            return False
        if self.mode == "play" and self.instance is not None:
            self._update_own(bpy, ob)
        elif self.mode == "follow":
            self._update_follow(bpy, ob, now)
        return True

    def _update_own(self, bpy, ob):
        s = self.stream
        if self.take is not None:
            poses = list(s.poses(self.instance))
            newest = poses[-1] if poses else None
            for p in poses:
                self._check_generation(p.generation)
                bases = self.rig.bases(p.joints)
                self.take.add_at_ns(p.publish_ns, _fps(bpy), self.take.source["start_frame"],
                                    p.clip_time, bases)
            if newest is not None:
                self._show(ob, newest.clip_time, newest.seq, bases)
            return
        p = s.latest(self.instance)
        if p is None or p.seq == self.seq:
            return
        self._check_generation(p.generation)
        self._show(ob, p.clip_time, p.seq, self.rig.bases(p.joints))
        self.paused = p.paused

    def _check_generation(self, gen):
        if gen != self.generation:
            if self.generation is not None:
                self.refresh()
            self.generation = gen

    def _show(self, ob, clip_time, seq, bases):
        self.rig.apply(ob, bases)
        self.clip_time, self.seq = clip_time, seq
        self.session.moved = True

    def _poll(self, now):
        states = self.session.client.instances(all=True)
        st = next((s for s in states if s.get("instance") == self.follow_id), None)
        if st is None:
            self.note = "instance %d is gone" % self.follow_id
            self.mode = None
            return
        self.follow_state, self.follow_at = st, now
        self.paused = st.get("state") == "paused"

    def follow_time(self, now):
        """The followed instance's playback time now, and its layers'."""
        st = self.follow_state
        run = st.get("state") == "playing"
        dt = (now - self.follow_at) if run else 0.0
        layers = []
        for layer in st.get("layers") or []:
            w, target, left = layer["weight"], layer.get("target", layer["weight"]), \
                layer.get("fade_left", 0.0)
            if left > 0:
                w += (target - w) * min(1.0, dt / left)
            lay = {"asset": layer["asset"], "clip": layer["clip"],
                   "time": layer["time"] + (layer.get("speed", 1.0) * dt if run else 0.0),
                   "weight": min(max(w, 0.0), 1.0),
                   "mode": "additive" if layer["mode"] == "additive" else "override"}
            if layer.get("mask"):
                lay["mask"] = [{"joints": [m["joint"]], "weight": m["weight"]}
                               for m in layer["mask"]]
            if layer.get("reference"):
                lay["reference"] = layer["reference"]
            layers.append(lay)
        return st["time"] + st.get("speed", 1.0) * dt, layers

    def _update_follow(self, bpy, ob, now):
        if now - self.follow_at >= POLL_S:
            self._poll(now)
            if self.mode != "follow":
                return
        st = self.follow_state
        t, layers = self.follow_time(now)
        s = self.session.client.sample(asset=st["asset"], clip=st.get("clip"),
                                       mesh=st.get("mesh"), time=t, loop=st.get("loop"),
                                       root_motion=st.get("root_motion"), layers=layers or None)
        self.time = t
        if st.get("generation") != self.generation:
            self._check_generation(st.get("generation"))
        bases = self.rig.bases(s.joints)
        if self.take is not None:
            self.take.add_at_ns(time.monotonic_ns(), _fps(bpy), self.take.source["start_frame"],
                                s["clip_time"], bases)
        self._show(ob, s["clip_time"], None, bases)

    # ---- recording ------------------------------------------------------

    def record_start(self, bpy):
        """Record every pose from the next one on (what the ring still
        holds from before is passed over)."""
        if self.mode == "play" and self.stream is not None and self.instance is not None:
            for _ in self.stream.poses(self.instance):
                pass
        scene = bpy.context.scene
        self.take = record.Take({"asset": self.asset or "", "clip": self.clip or "",
                                 "mesh": self.mesh or "", "how": "stream" if self.mode ==
                                 "play" else "follow", "start_frame": scene.frame_current})

    def record_stop(self, bpy, name=None):
        """The action recorded (None when nothing came), assigned to the
        armature, which then plays it: the live link stops (Play or Follow
        takes the action off again)."""
        take, self.take = self.take, None
        if take is None or not len(take):
            return None
        ob = bpy.data.objects[self.object_name]
        act = record.write_action(bpy, ob, self.rig, take, name or "animd %s#%s" % (
            take.source["asset"], take.source["clip"]))
        self.stop()
        return act

    def bake(self, bpy, asset, clip, start_frame=None, name=None):
        """The clip sampled at every frame (``sample`` at k / fps seconds,
        played once: the last key is the clip's end), as an action."""
        scene = bpy.context.scene
        fps = _fps(bpy)
        start = scene.frame_current if start_frame is None else start_frame
        info = self.session.catalog.info(asset)
        duration = next((float(c.get("duration") or 0.0) for c in info.get("clips") or []
                         if c["name"] == clip), 0.0)
        n = max(int(np.ceil(duration * fps - 1e-9)), 0) + 1
        take = record.Take({"asset": asset, "clip": clip or "", "mesh": self.mesh or "",
                            "how": "sample", "start_frame": start})
        c = self.session.client
        for k in range(n):
            t = min(k / fps, duration)
            s = c.sample(asset=asset, clip=clip, mesh=self.mesh, time=t, loop="once")
            take.add(start + k, s["clip_time"], self.rig.bases(s.joints))
        ob = bpy.data.objects[self.object_name]
        act = record.write_action(bpy, ob, self.rig, take, name or "animd %s#%s" % (asset, clip))
        self.stop()
        return act

    # ---- after a reconnection --------------------------------------------

    def restore(self):
        """Play again what played before the connection dropped."""
        self.instance = self.stream = None
        self.generation = None
        self.refresh()
        if self.mode == "play" and self.asset is not None:
            self.play(self.asset, self.clip, start=self.time, loop=self.loop,
                      paused=self.paused)
        elif self.mode == "follow":
            self.follow_at = 0.0

    def lost(self):
        """The connection is gone: forget what lived on it."""
        if self.stream is not None:
            self.stream.unmap()
        self.stream = None
        self.instance = None
        if self.clip_time is not None and self.mode == "play":
            # Where playback was: a looping clip carries on from there.
            self.time = self.clip_time


def _fps(bpy):
    r = bpy.context.scene.render
    return r.fps / r.fps_base


class Session:
    """The connection and every link on it."""

    def __init__(self, animd, socket, rate=60, retry=1.0, timeout=2.0):
        self.animd = animd
        self.socket = socket
        self.rate = rate
        self.retry = retry
        self.timeout = timeout
        self.client = None
        self.catalog = None
        self.links = {}
        self.status = "not connected"
        self.error = ""
        self.retry_at = 0.0
        self.reconnects = 0
        self.moved = False
        self._events = []
        self.wanted = False             # connect (again) when not connected

    # ---- connection -----------------------------------------------------

    def connect(self):
        """Connect now; raises animd.CannotConnect (saying what to do) or
        animd.Error."""
        self.wanted = True
        self.client = self.animd.Client(self.socket, timeout=self.timeout,
                                        on_event=self._on_event, name="blender animd_link")
        try:
            self.client.subscribe(EVENTS)
            self.catalog = source.Catalog(self.client)
            for link in self.links.values():
                try:
                    link.restore()
                except self.animd.Error as e:
                    # The asset or clip may be gone: this link says so, the
                    # others carry on.
                    link.mode = None
                    link.note = "not played again: %s" % e
        except BaseException:
            self._drop()
            raise
        self.status = "connected (%s)" % self.client.server["server"]
        self.error = ""

    def _drop(self):
        for link in self.links.values():
            link.lost()
        if self.client is not None:
            try:
                self.client.close()
            except Exception:           # noqa: BLE001  (already gone)
                pass
        self.client = None

    def disconnect(self, why=None):
        """Close (why None: at the user's word, no reconnection)."""
        if why is None:
            self.wanted = False
            for link in self.links.values():
                link.stop()
            self._drop()
            self.status = "not connected"
            return
        self._drop()
        self.status = "disconnected: %s; reconnecting every %g s" % (why, self.retry)
        self.retry_at = time.monotonic() + self.retry

    @property
    def connected(self):
        return self.client is not None and not self.client.closed

    # ---- links ----------------------------------------------------------

    def link(self, ob):
        link = self.links.get(ob.name)
        if link is None:
            link = Link(self, ob)
            self.links[ob.name] = link
            if self.connected:
                link.refresh()
        return link

    def unlink(self, name):
        link = self.links.pop(name, None)
        if link is not None:
            link.stop()

    # ---- the timer ------------------------------------------------------

    def step(self, bpy):
        """One tick: reconnect when due, events, poses.  Never raises for
        the daemon's sake: what went wrong is in status and the notes."""
        now = time.monotonic()
        self.moved = False
        if not self.connected:
            if self.client is not None:
                self.disconnect("the connection closed")
            if self.wanted and now >= self.retry_at:
                try:
                    self.connect()
                    self.reconnects += 1
                except (OSError, self.animd.Error) as e:
                    self.status = "disconnected: %s; reconnecting every %g s" % (e, self.retry)
                    self.retry_at = now + self.retry
            return
        try:
            self.client.process()
            self._handle_events()
            for name, link in list(self.links.items()):
                if self.client is None:
                    break
                try:
                    if not link.update(bpy, now):
                        self.unlink(name)
                except self.animd.StreamError as e:
                    if link.stream is not None and link.stream.state == "closed":
                        raise
                    link.note = str(e)
                except self.animd.Error as e:
                    link.note = str(e)
            for link in self.links.values():
                if link.stream is not None and link.stream.state == "closed":
                    raise self.animd.Disconnected("the daemon closed the stream")
        except (OSError, self.animd.StreamError) as e:
            # Disconnected and CannotConnect are OSErrors (ConnectionError).
            self.disconnect(str(e) or type(e).__name__)

    def _on_event(self, ev):
        self._events.append(ev)

    def _handle_events(self):
        events, self._events = self._events, []
        for ev in events:
            kind = ev.get("type")
            if kind == "server.stopping":
                raise self.animd.Disconnected("the daemon is stopping")
            if kind in ("asset.reloaded", "asset.removed", "asset.error"):
                asset = ev.get("asset")
                self.catalog.forget(asset)
                self.catalog.forget()       # the list and who fits whom
                for link in self.links.values():
                    if asset in (link.source, link.asset) and kind == "asset.reloaded":
                        link.refresh()
                    elif asset in (link.source, link.asset) and kind == "asset.error":
                        link.note = ev.get("message", "")
            elif kind == "instance.stopped":
                for link in self.links.values():
                    if link.instance == ev.get("instance"):
                        self._stopped(link, ev)

    def _stopped(self, link, ev):
        """The daemon stopped a link's instance: play it again on the new
        skeleton when that is why, else say so."""
        link.instance = None
        if ev.get("reason") in ("skeleton_changed", "stream_too_small"):
            try:
                link.refresh()
                link.play(link.asset, link.clip, start=link.time, loop=link.loop,
                          paused=link.paused)
                link.note = "the skeleton changed: joints mapped again (%s)" % ev.get("message")
                return
            except self.animd.Error as e:
                link.note = "%s; playing it again failed: %s" % (ev.get("message"), e)
                return
        link.mode = None
        link.note = ev.get("message") or "the daemon stopped the instance"


SESSION = None


def session(animd=None, socket=None, **kw):
    """The one session, made on first use."""
    global SESSION
    if SESSION is None:
        SESSION = Session(animd, socket, **kw)
    elif socket is not None and socket != SESSION.socket:
        SESSION.disconnect()
        SESSION.socket = socket
    return SESSION


def tick():
    """bpy.app.timers' callback: one step, then the interval to the next."""
    import bpy
    s = SESSION
    if s is None:
        return None
    s.step(bpy)
    if s.moved:
        for window in bpy.context.window_manager.windows:
            for area in window.screen.areas:
                if area.type in ("VIEW_3D", "PROPERTIES"):
                    area.tag_redraw()
    return 1.0 / max(s.rate, 1)
