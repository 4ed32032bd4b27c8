"""bench_python - the Python package (client/python/animd) beside
libanimclient, against one daemon on a private socket, the same minute:

- ``Stream.latest()`` of a 64-joint model-space pose while the daemon
  publishes it at 1 kHz (the issue's goal: at most 20 us), and
  ``Stream.poses()`` per pose; CPU time of this thread per call;
- ``status`` round trips per second on one connection (the reply decoded),
  and this process's CPU time per call; ``sample`` of the 64-joint pose
  into numpy arrays;
- then bench_client (libanimclient) against the same daemon.

Medians of the rounds, with the spread (slowest .. fastest round).  Prints
figures; asserts nothing about speed.  Without python3-msgpack or numpy it
says so and exits 0, so `make bench` goes on.
"""
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time

try:
    import msgpack
    import numpy as np
except ImportError as e:
    print("bench_python: skipped: %s (make deps installs python3-msgpack and python3-numpy)" % e)
    sys.exit(0)

SRC = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SRC, "client", "python"))
import animd                            # noqa: E402

ANIMD = os.environ["ANIMD"]
BUILD = os.environ["BUILD"]
ROUNDS = 9
C64 = {"asset": "c64.md5anim", "mesh": "c64.md5mesh"}


def rounds(fn, calls, clock=time.thread_time):
    """Per-call cost of fn() in microseconds of `clock`, one figure a round."""
    out = []
    for _ in range(ROUNDS):
        t0 = clock()
        for _ in range(calls):
            fn()
        out.append((clock() - t0) / calls * 1e6)
    return sorted(out)


def spread(v, fmt="%.2f"):
    return (fmt + " (rounds " + fmt + " .. " + fmt + ")") % (v[len(v) // 2], v[0], v[-1])


def main():
    tmp = tempfile.mkdtemp(prefix="animd-benchpy-")
    assets, sock = os.path.join(tmp, "assets"), os.path.join(tmp, "animd.sock")
    os.mkdir(assets)
    subprocess.run([os.path.join(BUILD, "gen", "gen_synth"), assets, "c64", "64", "61", "30"],
                   check=True)
    log = open(os.path.join(tmp, "animd.log"), "w")
    proc = subprocess.Popen([ANIMD, "serve", "--assets", assets, "--socket", sock,
                             "--log-level", "warning"], stderr=log)
    try:
        deadline = time.time() + 20
        while True:
            try:
                c = animd.Client(sock)
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.02)
        # The socket answers while the first asset scan still runs.
        while True:
            loaded = c.status()["assets"]
            if loaded["count"] >= 1 and loaded["loading"] == 0:
                break
            if time.time() > deadline:
                raise RuntimeError("the daemon did not load its asset within 20 s")
            time.sleep(0.02)
        print("== Python client (client/python/animd; Python %s, numpy %s, msgpack %s), "
              "beside libanimclient, one daemon" % (platform.python_version(), np.__version__,
                                                    ".".join(map(str, msgpack.version))))
        st = c.stream_open(space="model", rate=1000, instances=1, joints=64)
        inst = c.play(stream=st, **C64)
        while st.latest(inst) is None:
            time.sleep(0.001)
        assert st.latest(inst).joints.shape == (64, 3, 4)
        lat = rounds(lambda: st.latest(inst), 20000)
        print("python latest(), 64-joint pose:  %s us CPU   goal <= 20 us" % spread(lat))

        # Every pose in order: 30 ms of publishing (30 poses, a ring of 64)
        # read at once, the read timed alone.
        st2 = c.stream_open(space="model", rate=1000, instances=1, joints=64, depth=64)
        i2 = c.play(stream=st2, **C64)
        per = []
        for _ in range(ROUNDS):
            spent, n = 0.0, 0
            for _ in range(10):
                list(st2.poses(i2))
                time.sleep(0.03)
                t0 = time.thread_time()
                n += sum(1 for _ in st2.poses(i2))
                spent += time.thread_time() - t0
            per.append(spent / max(n, 1) * 1e6)
        per.sort()
        print("python poses(), per pose read:   %s us CPU (30 at a time)" % spread(per))
        wall, cpu = [], []
        for _ in range(ROUNDS):
            w0, c0 = time.monotonic(), time.process_time()
            for _ in range(2000):
                c.status()
            wall.append(2000 / (time.monotonic() - w0))
            cpu.append((time.process_time() - c0) / 2000 * 1e6)
        wall.sort()
        cpu.sort()
        print("python status round trip, 1 conn: %s req/s, client CPU %.1f us per call" %
              (spread(wall, "%.0f"), cpu[len(cpu) // 2]))
        smp = rounds(lambda: c.sample(time=0.5, **C64).joints, 500, time.process_time)
        print("python sample() 64 joints, to (64, 3, 4): %s us client CPU per call" %
              spread(smp, "%.0f"))
        c.close()
        ref = os.path.join(BUILD, "bench", "bench_client")
        if os.path.exists(ref):
            sys.stdout.flush()
            subprocess.run([ref, sock], check=True)
        else:
            print("(%s is not built: no libanimclient figures beside these)" % ref)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
        log.close()
        shutil.rmtree(tmp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
