"""The daemon as clients written by other people see it (issue 8, D3 and D8).

1. Neovim's own Python msgpack-RPC client (Debian's python3-pynvim,
   pynvim.msgpack_rpc.socket_session) connects, sends its first
   notification with a bin method name as it always does, and then calls
   methods: it must not be thrown out.
2. Every reply and every event type, decoded by an independent msgpack
   implementation (python3-msgpack) that sees the raw byte stream: every
   top-level object must be one whole message of PROTOCOL.md's shapes, and
   each event must carry exactly the fields section 10 lists.

Exit 0 pass, 1 fail, 77 skipped (a package missing; the reason is printed).
"""
import os
import shutil
import signal
import socket
import sys
import time

try:
    import msgpack
except ImportError:
    print("SKIP: python3-msgpack is not installed (make deps installs it)")
    sys.exit(77)
try:
    from pynvim.msgpack_rpc import socket_session
except ImportError:
    socket_session = None

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from daemon_fixture import ANIMD, BUILD, TIMEOUT, Daemon  # noqa: E402,F401

# PROTOCOL.md section 10: the fields of each event besides "type".
EVENT_FIELDS = {
    "asset.loaded": {"asset", "generation", "format"},
    "asset.reloaded": {"asset", "generation", "format"},
    "asset.error": {"asset", "generation", "format", "message", "live"},
    "asset.removed": {"asset"},
    "instance.ended": {"instance", "asset", "clip", "time"},
    "instance.stopped": {"instance", "asset", "clip", "time", "reason", "message"},
    "server.stopping": set(),
    "instance.faded": {"instance", "asset", "clip", "time"},
    "layer.ended": {"instance", "layer", "clip", "time"},
}

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("not ok:", what)


def stop_daemon(d):
    rc, _ = d.stop()
    check(rc == 0, "the daemon exits 0 on SIGTERM (got %s)" % rc)


def pynvim_client(d):
    if socket_session is None:
        print("skip part: python3-pynvim is not installed (make deps installs it)")
        return
    s = socket_session(d.sock)            # sends [2, b"nvim_set_client_info", [...]]
    s.error_wrapper = lambda e: RuntimeError(e)
    hello = s.request("hello")
    check(hello.get("protocol") == 1, "pynvim: hello answers protocol 1")
    st = s.request("status")
    check(st.get("assets", {}).get("count") == 6, "pynvim: status after its notification")
    # A bin method name in a request, as pynvim sends any bytes object.
    st = s.request(b"status")
    check("uptime" in st, "pynvim: a bin method name in a request")
    played = s.request("play", {"asset": "walker.md5anim", "mesh": "walker.md5mesh"})
    check(isinstance(played.get("instance"), int), "pynvim: play")
    try:
        s.request("play", {"asset": "no-such.md5anim"})
        check(False, "pynvim: an unknown asset is an error")
    except RuntimeError as e:
        err = e.args[0]
        check(isinstance(err, dict) and err.get("code") == "not_found",
              "pynvim: the error is {code, message} (%r)" % (err,))
    s.close()


class Raw:
    """A client that sees the bytes: nothing may be stray."""

    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.connect(path)
        self.s.settimeout(TIMEOUT)
        self.up = msgpack.Unpacker(raw=False, strict_map_key=True)
        self.msgid = 0
        self.replies = {}
        self.events = []

    def send(self, method, **args):
        self.msgid += 1
        self.s.sendall(msgpack.packb([0, self.msgid, method, [args] if args else []]))
        return self.msgid

    def take(self, obj):
        ok = isinstance(obj, list) and len(obj) >= 3 and isinstance(obj[0], int)
        if ok and obj[0] == 1:
            ok = (len(obj) == 4 and isinstance(obj[1], int) and
                  (obj[2] is None or (isinstance(obj[2], dict) and set(obj[2]) ==
                                      {"code", "message"} and obj[3] is None)))
            if ok:
                self.replies[obj[1]] = obj
        elif ok and obj[0] == 2:
            ok = (len(obj) == 3 and obj[1] == "event" and isinstance(obj[2], list) and
                  len(obj[2]) == 1 and isinstance(obj[2][0], dict))
            if ok:
                ev = obj[2][0]
                t = ev.get("type")
                ok = t in EVENT_FIELDS and set(ev) - {"type"} == EVENT_FIELDS[t]
                check(ok, "event %s has exactly its documented fields: %r" % (t, sorted(ev)))
                self.events.append(ev)
                return
        else:
            ok = False
        check(ok, "a top-level object that is not a message: %r" % (obj,))

    def pump(self, until):
        deadline = time.time() + TIMEOUT
        while not until():
            if time.time() > deadline:
                return False
            try:
                data = self.s.recv(65536)
            except socket.timeout:
                return False
            if not data:
                return until()
            self.up.feed(data)
            for obj in self.up:
                self.take(obj)
        return True

    def call(self, method, **args):
        mid = self.send(method, **args)
        check(self.pump(lambda: mid in self.replies), "a reply to %s" % method)
        return self.replies.get(mid, [1, mid, {"code": "none", "message": ""}, None])

    def event(self, type_, asset=None):
        def seen():
            return any(e["type"] == type_ and (asset is None or e.get("asset") == asset)
                       for e in self.events)
        check(self.pump(seen), "an %s event%s" % (type_, " for " + asset if asset else ""))


def wire(d):
    c = Raw(d.sock)
    r = c.call("subscribe", events=[t for t in EVENT_FIELDS if t != "server.stopping"])
    check(r[2] is None, "subscribe")
    for m in ("hello", "status", "assets.list", "instances.list"):
        check(c.call(m)[2] is None, m)
    check(c.call("assets.info", asset="walker.md5anim")[2] is None, "assets.info")
    check(c.call("assets.reload", asset="walker.md5anim")[2] is None, "assets.reload")
    r = c.call("play", asset="walker.md5anim", mesh="walker.md5mesh")
    inst = r[3]["instance"]
    for m, a in (("pause", {}), ("resume", {}), ("seek", {"time": 0.5}),
                 ("speed", {"speed": 2.0})):
        check(c.call(m, instance=inst, **a)[2] is None, m)
    for space in ("local", "model", "skin", "vertices"):
        check(c.call("sample", asset="walker.md5anim", mesh="walker.md5mesh", time=0.25,
                     space=space)[2] is None, "sample " + space)
    check(c.call("sample", asset="orbit.md5camera", time=0.5)[2] is None, "sample camera")
    r = c.call("stream.open", space="model")
    check(r[2] is None, "stream.open")
    if r[2] is None:
        check(c.call("stream.close", stream=r[3]["stream"])[2] is None, "stream.close")
    check(c.call("stop", instance=inst)[2] is None, "stop")
    # Errors are replies too.
    check(c.call("no.such.method")[2]["code"] == "unknown_method", "unknown_method")
    check(c.call("play", asset=5)[2]["code"] == "bad_request", "bad_request")
    # Every event type.
    c.call("play", asset="idle.md5anim", mesh="walker.md5mesh", loop="once")
    c.event("instance.ended")
    # A cross-fade ends with instance.faded, a layer faded out with layer.ended.
    r = c.call("play", asset="walker.md5anim", mesh="walker.md5mesh")
    inst = r[3]["instance"]
    check(c.call("play", instance=inst, asset="idle.md5anim", fade=0.05)[2] is None,
          "play on an instance")
    c.event("instance.faded")
    r = c.call("layer.add", instance=inst, mask=[{"joints": ["spine"], "weight": 0.5}])
    check(r[2] is None and r[3]["layers"][0]["mask"] == [{"joint": "spine", "weight": 0.5}],
          "layer.add")
    layer = r[3]["layer"] if r[2] is None else 0
    check(c.call("layer.set", instance=inst, layer=layer, weight=1.0)[2] is None, "layer.set")
    check(c.call("layer.remove", instance=inst, layer=layer, fade=0.05)[2] is None,
          "layer.remove")
    c.event("layer.ended")
    path = os.path.join(d.assets, "walker.md5anim")
    with open(path) as f:
        good = f.read()
    shutil.copy(path, os.path.join(d.assets, "copy.md5anim"))
    c.event("asset.loaded", "copy.md5anim")
    c.call("play", asset="copy.md5anim", mesh="walker.md5mesh")
    with open(os.path.join(d.assets, "copy.md5anim"), "w") as f:
        f.write(good.replace("numFrames", "numFrames 1 junk", 1))
    c.event("asset.error", "copy.md5anim")
    with open(os.path.join(d.assets, "copy.md5anim"), "w") as f:
        f.write(good + "\n")
    c.event("asset.reloaded", "copy.md5anim")
    os.unlink(os.path.join(d.assets, "copy.md5anim"))
    c.event("asset.removed", "copy.md5anim")
    c.event("instance.stopped")
    # The last event comes to every connection as the daemon stops.
    d.proc.send_signal(signal.SIGTERM)
    c.event("server.stopping")
    c.pump(lambda: False)               # to the end of the stream
    seen = {e["type"] for e in c.events}
    check(seen == set(EVENT_FIELDS), "every event type seen (missing %s)"
          % sorted(set(EVENT_FIELDS) - seen))
    c.s.close()


def main():
    d = Daemon()
    try:
        pynvim_client(d)
        wire(d)
    finally:
        stop_daemon(d)
    if failures:
        print("%d checks failed" % len(failures))
        return 1
    print("python clients: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
