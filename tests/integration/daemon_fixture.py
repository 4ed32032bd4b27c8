"""The real daemon for the Python integration tests: `animd serve` on
gen_demo's assets in a temporary directory, its socket at
DIR/build/animd.sock (where `make run` puts it, relative to the directory a
README example runs in).  ANIMD and BUILD come from the environment, as
tests/run-tests.sh sets them."""
import os
import select
import shutil
import signal
import socket
import subprocess
import tempfile
import time

ANIMD = os.environ["ANIMD"]
BUILD = os.environ["BUILD"]
TIMEOUT = 10.0


class Daemon:
    def __init__(self, prefix="animd-py-"):
        self.dir = tempfile.mkdtemp(prefix=prefix)
        self.assets = os.path.join(self.dir, "assets")
        os.makedirs(os.path.join(self.dir, "build"))
        self.sock = os.path.join(self.dir, "build", "animd.sock")
        os.mkdir(self.assets)
        subprocess.run([os.path.join(BUILD, "gen", "gen_demo"), self.assets], check=True,
                       stdout=subprocess.DEVNULL)
        self.conf = os.path.join(self.dir, "animd.ini")
        with open(self.conf, "w") as f:
            f.write("[assets]\nroot = %s\n[socket]\npath = %s\n[reload]\nquiet_ms = 50\n"
                    % (self.assets, self.sock))
        self.log = open(os.path.join(self.dir, "animd.log"), "w")
        # Ready is READY=1 on the notify socket, as systemd sees it: sent
        # once the first walk has indexed the assets (they load after it;
        # a request for one not loaded yet waits for its load).  The control
        # socket accepts connections earlier.
        notify_path = os.path.join(self.dir, "notify.sock")
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        notify.bind(notify_path)
        env = dict(os.environ, NOTIFY_SOCKET=notify_path)
        self.proc = subprocess.Popen([ANIMD, "serve", "-c", self.conf], stderr=self.log, env=env)
        try:
            deadline = time.time() + TIMEOUT
            while time.time() < deadline and self.proc.poll() is None:
                if select.select([notify], [], [], 0.05)[0]:
                    if b"READY=1" in notify.recv(4096).split(b"\n"):
                        return
        finally:
            notify.close()
        self.proc.kill()
        self.proc.wait()
        raise RuntimeError("the daemon did not become ready (no READY=1 within %.0f s)" % TIMEOUT)

    def restart(self):
        """SIGTERM, then start it again on the same configuration, socket
        and assets, without waiting for anything: its socket accepts as soon
        as it is made."""
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(TIMEOUT)
        self.proc = subprocess.Popen([ANIMD, "serve", "-c", self.conf], stderr=self.log)

    def stop(self):
        """SIGTERM and wait; returns (exit status, the end of its log), the
        directory removed."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(TIMEOUT)
        self.log.close()
        with open(os.path.join(self.dir, "animd.log")) as f:
            log = f.read()[-3000:]
        shutil.rmtree(self.dir)
        return rc, log
