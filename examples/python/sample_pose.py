"""One pose of the demo walker, evaluated by animd without playing it: every
joint's name, parent and model-space position at 0.5 s.
Usage: python3 sample_pose.py [SOCKET]   (default: $ANIMD_SOCKET, else animd's own)"""
import sys

import animd

with animd.Client(sys.argv[1] if len(sys.argv) > 1 else None) as c:
    s = c.sample(asset="walker.md5anim", mesh="walker.md5mesh", time=0.5, space="model")
    print(f"{s['asset']} at {s['time']:.2f} s (clip time {s['clip_time']:.2f} s)")
    for name, parent, (x, y, z) in zip(s.names, s.parents, s.positions):
        print(f"{name:<8} parent {parent:2d}  at {x:7.2f} {y:7.2f} {z:7.2f}")
