"""Play the demo walker into a pose stream and read it back: joint 0's
position in the first five poses animd publishes, in order.
Usage: python3 play_and_read.py [SOCKET]   (default: $ANIMD_SOCKET, else animd's own)"""
import sys
import time

import animd

with animd.Client(sys.argv[1] if len(sys.argv) > 1 else None) as c:
    stream = c.stream_open(space="model")       # a 3x4 matrix a joint
    walk = c.play(asset="walker.md5anim", mesh="walker.md5mesh", stream=stream)
    n = 0
    while n < 5:
        pose = stream.next(walk)                # the next pose in order, or None
        if pose is None:
            time.sleep(0.01)                    # no newer pose yet
            continue
        x, y, z = pose.positions[0]             # joint 0's position: column 3
        print(f"pose {n}  t {pose.clip_time:.3f} s  joint 0 at {x:.2f} {y:.2f} {z:.2f}")
        n += 1
