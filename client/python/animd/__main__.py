"""python3 -m animd: the package's command line.

    python3 -m animd draw ASSET [--clip C] [--time T] [--mesh M] [--frames N]
                              [--vertices] [--names] [--trail JOINT]
                              [-o pose.png] [--socket PATH]
    python3 -m animd status [--socket PATH]
"""
import argparse
import json
import sys

from animd.client import Client
from animd.errors import Disconnected, Error, Timeout


def _draw(c, a):
    from animd import draw
    draw.render(c, a.asset, clip=a.clip, time=a.time, mesh=a.mesh, frames=a.frames,
                vertices=a.vertices, path=a.output, dpi=a.dpi, names=a.names, trail=a.trail)
    print(a.output)


def _status(c, a):
    json.dump(c.status(), sys.stdout, indent=1, sort_keys=True)
    print()


def main(argv=None):
    p = argparse.ArgumentParser(prog="python3 -m animd", description=__doc__.splitlines()[0])
    p.add_argument("--socket", help="the daemon's socket (default $ANIMD_SOCKET, else "
                                    "/run/animd/animd.sock)")
    sub = p.add_subparsers(dest="command", required=True)
    d = sub.add_parser("draw", help="three orthographic views of a pose (a camera: its path "
                                    "and frusta), as PNG")
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
    d.add_argument("--socket", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    d.set_defaults(run=_draw)
    s = sub.add_parser("status", help="the daemon's status, as JSON")
    s.add_argument("--socket", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    s.set_defaults(run=_status)
    a = p.parse_args(argv)
    if a.command == "draw" and a.frames is not None and a.frames < 1:
        p.error("--frames must be at least 1")
    try:
        with Client(a.socket) as c:
            a.run(c, a)
    except (Error, Timeout, Disconnected, OSError, ValueError) as e:
        print("animd: %s" % e, file=sys.stderr)
        return 1
    except ImportError as e:
        print("animd: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
