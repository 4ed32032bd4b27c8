"""python3 -m animd (also installed as animd-py): the package's command line,
animctl's words for what it shares with animctl.

    python3 -m animd [--socket PATH] [--json] COMMAND ...
      status                     the daemon: version, uptime, assets, instances
      list                       every asset: format, generation, state
      info ASSET                 one asset, in animctl info's (and animd inspect's) lines
      sample ASSET --time T      one pose: animctl sample's header, then the pose
      reload ASSET               re-read an asset's file now
      clients                    every connection: name, pid, uid, age, what it owns
      kill CONNECTION [--reason] close a connection (an operator's)
      instances [--all]          this connection's instances, or every connection's
      draw ASSET ...             three orthographic views of a pose (a camera: its path
                                 and frusta), as PNG; --vertices, --names, --trail JOINT

Exit status: 0 ok, 1 the daemon answered with an error, 2 usage, 3 cannot
connect or the connection was lost (as animctl's).
"""
import argparse
import json
import os
import sys
from typing import Any, List, Optional

EXIT_OK, EXIT_SERVER, EXIT_USAGE, EXIT_CONNECT, EXIT_OTHER = 0, 1, 2, 3, 4
# What `animctl clients` and the daemon's log call this command line.
CLIENT_NAME = "python3 -m animd"


def _json(value: Any) -> None:
    json.dump(value, sys.stdout, sort_keys=True)
    print()


def _status(c: Any, a: argparse.Namespace) -> None:
    st = c.status()
    if a.json:
        _json(st)
        return
    n = st.get("assets", {})
    print("server       %s (pid %s)" % (st.get("server"), st.get("pid")))
    print("socket       %s" % c.socket)
    print("uptime       %.1f s" % st.get("uptime", 0.0))
    print("asset root   %s" % st.get("asset_root"))
    print("assets       %d (%d failing, %d loading, %d not served)" % (
        n.get("count", 0), n.get("failing", 0), n.get("loading", 0), n.get("unservable", 0)))
    states = n.get("states", {})
    if states.get("loading") or states.get("evicted") or st.get("memory", {}).get("assets_cap"):
        print("  in memory  %d not loaded yet, %d evicted; %d evictions, %d loads on demand since "
              "start" % (states.get("loading", 0), states.get("evicted", 0), n.get("evictions", 0),
                         n.get("on_demand_loads", 0)))
    print("instances    %d" % st.get("instances", 0))
    print("connections  %d" % st.get("connections", 0))
    print("requests     %d" % st.get("requests", 0))


def _list(c: Any, a: argparse.Namespace) -> None:
    assets = c.assets()
    if a.json:
        _json({"assets": assets})
        return
    w = max([5] + [len(x["asset"]) for x in assets])
    print("%-*s  %-10s  %4s  %s" % (w, "ASSET", "FORMAT", "GEN", "STATE"))
    for x in assets:
        # The daemon's state (loading, ok, failed, evicted); failed as animctl says it.
        state = x.get("state") or ("ok" if x["ok"] else "failed")
        print("%-*s  %-10s  %4d  %s%s" % (w, x["asset"], x["format"], x["generation"],
                                          "error" if state == "failed" else state,
                                          ": " + x["error"] if x.get("error") else ""))


def _info(c: Any, a: argparse.Namespace) -> None:
    from animd import describe
    info = c.info(a.asset)
    if a.json:
        _json(info)
        return
    for text in describe.asset_info(info):
        print(text)


def _sample(c: Any, a: argparse.Namespace) -> None:
    from animd import describe
    s = c.sample(asset=a.asset, time=a.time, clip=a.clip, space=a.space, mesh=a.mesh,
                 loop=a.loop, root_motion=a.root_motion)
    if a.json:
        _json(dict(s))
        return
    print(describe.sample_header(s.get("asset"), s.get("clip"), s.get("time", a.time),
                                 s.get("clip_time", 0.0), s.get("cycles", 0), s.get("space")))
    if s.space == "camera":
        print("camera position %.3f %.3f %.3f orientation %.4f %.4f %.4f %.4f fov %.2f" % (
            tuple(s.position) + tuple(s.orientation) + (s.fov,)))
    elif s.names is not None:
        for i, (n, row) in enumerate(zip(s.names, s.data)):
            if s.space == "local":
                print("%3d %-16s t %9.3f %9.3f %9.3f  r %7.4f %7.4f %7.4f %7.4f"
                      % ((i, n) + tuple(row[:7])))
            else:
                print("%3d %-16s position %9.3f %9.3f %9.3f" % (i, n, row[3], row[7], row[11]))
    elif s.data is not None:
        print("%d %s (--json prints them)" % (len(s.data), s.space))


def _reload(c: Any, a: argparse.Namespace) -> None:
    r = c.reload(a.asset)
    if a.json:
        _json(r)
        return
    print("%s generation %d%s" % (r.get("asset", a.asset), r["generation"],
                                  " (unchanged: the file is the live version)"
                                  if r.get("unchanged") else ""))


def _duration(s: float) -> str:
    """animctl's durations: 4.2s, 3m07s, 2h05m09s, 1d03h20m."""
    v = int(s) if s > 0 else 0
    if v >= 86400:
        return "%dd%02dh%02dm" % (v // 86400, v // 3600 % 24, v // 60 % 60)
    if v >= 3600:
        return "%dh%02dm%02ds" % (v // 3600, v // 60 % 60, v % 60)
    if v >= 60:
        return "%dm%02ds" % (v // 60, v % 60)
    return "%.1fs" % (s if s > 0 else 0)


def _clients(c: Any, a: argparse.Namespace) -> None:
    clients = c.clients()
    if a.json:
        _json({"clients": clients})
        return
    print("%-6s %-16s %7s %6s %6s %9s %8s %5s %5s %5s %8s %8s" % (
        "CONN", "NAME", "PID", "UID", "GID", "AGE", "REQS", "INST", "STRM", "EVTS", "QUEUED",
        "MEMORY"))
    for x in clients:
        print("%-6d %-16s %7d %6d %6d %9s %8d %5d %5d %5d %8d %8d%s%s" % (
            x["connection"], (x.get("name") or "-")[:16], x["pid"], x["uid"], x["gid"],
            _duration(x["age"]), x["requests"], x["instances"], x["streams"], x["events"],
            x["queued_bytes"], x["memory_bytes"], "  (monitor)" if x.get("monitor") else "",
            "  (this)" if x.get("self") else ""))


def _kill(c: Any, a: argparse.Namespace) -> None:
    k = c.clients_kill(a.connection, reason=a.reason)
    if a.json:
        _json(k)
        return
    print("closed connection %d%s (pid %d): %d instance%s stopped, %d stream%s closed" % (
        k["connection"], ' "%s"' % k["name"] if k.get("name") else "", k["pid"],
        k["instances"], "" if k["instances"] == 1 else "s", k["streams"],
        "" if k["streams"] == 1 else "s"))


def _instances(c: Any, a: argparse.Namespace) -> None:
    states = c.instances(all=True if a.all else None)
    if a.json:
        _json({"instances": states})
        return
    for st in states:
        owner = ("connection %d%s  " % (st["connection"], ' "%s"' % st["client"]
                                        if st.get("client") else "")
                 if "connection" in st else "")
        print("%sinstance %d %s  %s%s  time %.3f (clip %.3f of %.3f s)  speed %g  %s" % (
            owner, st["instance"], st["state"], st["asset"],
            " clip %s" % st["clip"] if st.get("clip") else "", st["time"], st["clip_time"],
            st["duration"], st["speed"], st["loop"]))
    if not states:
        print("python3 -m animd: %s" % ("no connection has an instance" if a.all else
                                        "this connection has no instances (--all lists "
                                        "every connection's)"), file=sys.stderr)


def _draw(c: Any, a: argparse.Namespace) -> None:
    from animd import draw
    draw.render(c, a.asset, clip=a.clip, time=a.time, mesh=a.mesh, frames=a.frames,
                vertices=a.vertices, path=a.output, dpi=a.dpi, names=a.names, trail=a.trail)
    print(a.output)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python3 -m animd", description=(__doc__ or "").splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--socket", default=argparse.SUPPRESS,
                        help="the daemon's socket (default $ANIMD_SOCKET, else "
                             "/run/animd/animd.sock)")
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                        help="machine-readable output: one JSON document")
    p.add_argument("--socket", help=argparse.SUPPRESS)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    sub = p.add_subparsers(dest="command", required=True)

    def cmd(name: str, run: Any, text: str) -> argparse.ArgumentParser:
        s = sub.add_parser(name, parents=[common], help=text, description=text)
        s.set_defaults(run=run)
        return s

    cmd("status", _status, "the daemon: version, uptime, assets, instances")
    cmd("list", _list, "every asset: format, generation, state")
    cmd("info", _info, "one asset, in the lines animctl info prints").add_argument("asset")
    s = cmd("sample", _sample, "evaluate one pose (no instance)")
    s.add_argument("asset")
    s.add_argument("--time", type=float, required=True, help="playback time, seconds")
    s.add_argument("--clip")
    s.add_argument("--mesh")
    s.add_argument("--space", choices=("local", "model", "skin", "vertices", "camera",
                                       "emitters", "attachments"))
    s.add_argument("--loop", choices=("loop", "once", "pingpong"))
    s.add_argument("--root-motion", choices=("raw", "in_place"))
    cmd("reload", _reload, "re-read an asset's file now").add_argument("asset")
    cmd("clients", _clients, "every connection of the daemon")
    s = cmd("kill", _kill, "close a connection (an operator's: clients.kill)")
    s.add_argument("connection", type=int)
    s.add_argument("--reason")
    s = cmd("instances", _instances, "this connection's instances, or with --all every one's")
    s.add_argument("--all", action="store_true")
    d = cmd("draw", _draw, "three orthographic views of a pose (a camera: its path and "
                             "frusta), as PNG")
    d.add_argument("asset")
    d.add_argument("--clip", help="the clip (default the asset's first)")
    d.add_argument("--time", type=float, default=0.0, help="playback time, seconds")
    d.add_argument("--mesh", help="the md5mesh for an md5anim (bind pose, vertices)")
    d.add_argument("--frames", type=int, help="a contact sheet of N frames across the clip")
    d.add_argument("--vertices", action="store_true",
                   help="draw the skinned mesh too: a wireframe (points without triangles)")
    d.add_argument("--names", action="store_true", help="label the joints with their names")
    d.add_argument("--trail", metavar="JOINT",
                   help="draw JOINT's path across the clip (a name or an index)")
    d.add_argument("-o", "--output", default="pose.png", help="the PNG (default pose.png)")
    d.add_argument("--dpi", type=int, default=100)
    return p


def _quiet_stdout() -> None:
    """stdout's reader went away (`... | head`): send the rest nowhere, so
    that the interpreter's flush at exit does not complain either."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except OSError:
        pass


def main(argv: Optional[List[str]] = None) -> int:
    p = _parser()
    a = p.parse_args(argv)
    if a.command == "draw" and a.frames is not None and a.frames < 1:
        p.error("--frames must be at least 1")
    try:
        # The package itself: a missing numpy or msgpack says which Python
        # lacks it (animd._deps).
        from animd.client import Client
        from animd.errors import CannotConnect, Disconnected, Error, Timeout
    except ImportError as e:
        print("%s: %s" % (CLIENT_NAME, e), file=sys.stderr)
        return EXIT_OTHER
    try:
        with Client(getattr(a, "socket", None), name=CLIENT_NAME) as c:
            a.run(c, a)
            sys.stdout.flush()
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_OK
    except CannotConnect as e:
        print("%s: %s" % (CLIENT_NAME, e), file=sys.stderr)
        return EXIT_CONNECT
    except Error as e:
        print("%s %s: %s" % (CLIENT_NAME, a.command, e), file=sys.stderr)
        return EXIT_SERVER
    except (Disconnected, ConnectionError) as e:
        print("%s %s: %s" % (CLIENT_NAME, a.command, e), file=sys.stderr)
        return EXIT_CONNECT
    except ValueError as e:
        # What the daemon's answer cannot give: a joint of --trail that the
        # skeleton does not have, say.
        print("%s %s: %s" % (CLIENT_NAME, a.command, e), file=sys.stderr)
        return EXIT_SERVER
    except (Timeout, OSError, ImportError) as e:
        print("%s %s: %s" % (CLIENT_NAME, a.command, e), file=sys.stderr)
        return EXIT_OTHER
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
