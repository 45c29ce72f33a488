#!/usr/bin/env python3
"""run.py <prefix> [--bench N] — synced preferences over two (then three)
real Syncthing instances on loopback, driven through the installed `prefs`.

Each machine is a home of its own (its own XDG_CONFIG_HOME, so its own
libprefs machine identity, its own sync folder) and a Syncthing of its own
configured here: listening on 127.0.0.1 only, its GUI/REST on 127.0.0.1
only, global discovery, local discovery, relays, NAT traversal, usage
reports and upgrades off, each knowing the others' device IDs and
addresses, one shared folder (the machine's libprefs sync folder). The
test starts them itself and kills every process it started at the end.

Checks, one line each ("PASS name" / "FAIL name (why)"), then a count:
  a key declared synced on A and written there reaches B's reads
  (prefs explain names A's machine) and B's observer (prefs watch);
  a removal on A travels to B;
  writes made on B while B's Syncthing is stopped, and a newer write of
  the same key on A, converge on the newest on both once it restarts;
  a third machine C that joins late gets the whole state.
Every wait is bounded (WAIT seconds). With --bench N, also measures N
times the time from a write on A to B's `prefs watch` printing it, and
prints the figures (BENCHMARKS.md, "Synced preferences").
Exit status 0 when every check passed, 1 otherwise, 2 on bad usage.
"""
import os
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

WAIT = float(os.environ.get("SYNC_TEST_WAIT", "90"))
APP = "com.example.synctest"

passed = 0
failed = 0
processes = []


def report(ok, name, why=""):
    global passed, failed
    if ok:
        passed += 1
        print(f"PASS  sync/{name}", flush=True)
    else:
        failed += 1
        print(f"FAIL  sync/{name}  ({why})", flush=True)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(args, env, **kw):
    p = subprocess.Popen(args, env=env, start_new_session=True, **kw)
    processes.append(p)
    return p


def stop(p):
    if p.poll() is None:
        try:
            os.killpg(p.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait(timeout=10)
    if p in processes:
        processes.remove(p)


def stop_all():
    for p in list(processes):
        stop(p)


class Machine:
    def __init__(self, root, name, prefs):
        self.name = name
        self.prefs = prefs
        self.home = os.path.join(root, name)
        self.config = os.path.join(self.home, "config")
        self.sync = os.path.join(self.home, "sync")
        self.st = os.path.join(self.home, "syncthing")
        for d in (self.config, self.sync, self.st, os.path.join(self.home, "runtime")):
            os.makedirs(d, mode=0o700, exist_ok=True)
        os.chmod(os.path.join(self.home, "runtime"), 0o700)
        # The folder marker Syncthing looks for before it syncs a folder.
        os.makedirs(os.path.join(self.sync, ".stfolder"), exist_ok=True)
        self.port = free_port()
        self.gui = free_port()
        self.apikey = secrets.token_hex(16)
        self.env = dict(os.environ)
        self.env.update(
            HOME=self.home,
            XDG_CONFIG_HOME=self.config,
            XDG_RUNTIME_DIR=os.path.join(self.home, "runtime"),
            XDG_DATA_HOME=os.path.join(self.home, "data"),
            XDG_CACHE_HOME=os.path.join(self.home, "cache"),
            PREFS_SYNC_DIR=self.sync,
            STNODEFAULTFOLDER="1",
            STNOUPGRADE="1",
        )
        for var in ("PREFS_SYSTEM_DIR", "PREFS_MANAGED_DIR"):
            self.env[var] = os.path.join(self.home, var.lower())
        subprocess.run(
            ["syncthing", "generate", f"--home={self.st}", "--no-default-folder", "--skip-port-probing"],
            env=self.env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        out = subprocess.run(["syncthing", "serve", f"--home={self.st}", "--device-id"],
                             env=self.env, check=True, capture_output=True, text=True).stdout
        self.device = out.strip().splitlines()[-1]
        self.syncthing = None

    def configure(self, peers):
        devices = [f'<device id="{self.device}" name="{self.name}"><address>dynamic</address></device>']
        shares = [f'<device id="{self.device}"></device>']
        for p in peers:
            devices.append(
                f'<device id="{p.device}" name="{p.name}" compression="metadata">'
                f'<address>tcp://127.0.0.1:{p.port}</address><autoAcceptFolders>false</autoAcceptFolders></device>')
            shares.append(f'<device id="{p.device}"></device>')
        xml = f"""<configuration version="36">
    <folder id="prefs-sync" label="prefs" path="{self.sync}" type="sendreceive" rescanIntervalS="2"
            fsWatcherEnabled="true" fsWatcherDelayS="1" ignorePerms="false" autoNormalize="true">
        {''.join(shares)}
        <minDiskFree unit="%">0</minDiskFree>
    </folder>
    {''.join(devices)}
    <gui enabled="true" tls="false"><address>127.0.0.1:{self.gui}</address><apikey>{self.apikey}</apikey></gui>
    <options>
        <listenAddress>tcp://127.0.0.1:{self.port}</listenAddress>
        <globalAnnounceEnabled>false</globalAnnounceEnabled>
        <localAnnounceEnabled>false</localAnnounceEnabled>
        <relaysEnabled>false</relaysEnabled>
        <natEnabled>false</natEnabled>
        <startBrowser>false</startBrowser>
        <urAccepted>-1</urAccepted>
        <autoUpgradeIntervalH>0</autoUpgradeIntervalH>
        <crashReportingEnabled>false</crashReportingEnabled>
        <reconnectionIntervalS>2</reconnectionIntervalS>
        <minHomeDiskFree unit="%">0</minHomeDiskFree>
        <announceLANAddresses>false</announceLANAddresses>
    </options>
</configuration>
"""
        with open(os.path.join(self.st, "config.xml"), "w") as f:
            f.write(xml)

    def start_syncthing(self):
        log = open(os.path.join(self.home, "syncthing.log"), "ab")
        self.syncthing = start(
            ["syncthing", "serve", f"--home={self.st}", "--no-browser", "--no-restart", "--no-upgrade"],
            self.env, stdout=log, stderr=subprocess.STDOUT)

    def stop_syncthing(self):
        if self.syncthing is not None:
            stop(self.syncthing)
            self.syncthing = None

    def run(self, *args, check=True):
        r = subprocess.run([self.prefs, *args], env=self.env, capture_output=True, text=True, timeout=60)
        if check and r.returncode != 0:
            raise RuntimeError(f"{self.name}: prefs {' '.join(args)}: {r.returncode}: {r.stderr.strip()}")
        return r

    def identity(self):
        """This machine's libprefs identity, as `prefs sync status` prints it."""
        for line in self.run("sync", "status").stdout.splitlines():
            if line.startswith("this machine: "):
                return line.split(": ", 1)[1]
        return "(none)"

    def read(self, key):
        r = self.run("read", APP, key, check=False)
        return r.stdout.strip() if r.returncode == 0 else None


def wait_for(condition, seconds=WAIT):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


def main():
    args = sys.argv[1:]
    bench = 0
    if "--bench" in args:
        i = args.index("--bench")
        bench = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    prefs = os.path.join(os.path.abspath(args[0]), "bin", "prefs")
    if not os.access(prefs, os.X_OK):
        print(f"run.py: {prefs}: not found (make install PREFIX=... first)", file=sys.stderr)
        return 2
    if shutil.which("syncthing") is None:
        print("run.py: syncthing is not installed (make deps installs it)", file=sys.stderr)
        return 2
    root = tempfile.mkdtemp(prefix="prefs-sync-test.")
    try:
        return scenario(root, prefs, bench)
    finally:
        stop_all()
        if failed == 0:
            shutil.rmtree(root, ignore_errors=True)
        else:
            print(f"(kept {root} for inspection: homes, Syncthing logs)")


def scenario(root, prefs, bench):
    a, b, c = (Machine(root, n, prefs) for n in ("alpha", "beta", "gamma"))
    a.configure([b, c])
    b.configure([a])
    c.configure([a])
    a.start_syncthing()
    b.start_syncthing()

    # A write on A reaches B's reads and B's observer.
    watch_log = os.path.join(root, "beta-watch.txt")
    with open(watch_log, "w") as out:
        watcher = start([prefs, "watch", APP, "Color"], b.env, stdout=out, stderr=subprocess.STDOUT)
    time.sleep(1)
    a.run("sync", "add", APP, "Color", "Size")
    a.run("write", APP, "Color", "red")
    ok = wait_for(lambda: b.read("Color") == "red")
    report(ok, "write-reaches-read", f"beta reads {b.read('Color')!r}")
    explain = b.run("explain", APP, "Color", check=False).stdout
    report("synced from" in explain and a.identity() in explain, "explain-names-machine",
           f"{explain.strip()}; alpha is {a.identity()}")
    ok = wait_for(lambda: "red" in open(watch_log).read(), 30)
    report(ok, "write-reaches-observer", f"prefs watch printed {open(watch_log).read()!r}")
    status = b.run("sync", "status", APP).stdout
    report("Color = red" in status and a.identity() in status, "status-on-other-machine", status.strip())
    report(b.run("read-type", APP, "Size", check=False).returncode == 1, "declaration-without-value",
           "Size has no value anywhere yet")

    # A removal travels.
    a.run("write", APP, "Size", "-int", "12")
    ok = wait_for(lambda: b.read("Size") == "12")
    report(ok, "second-key", f"beta reads Size {b.read('Size')!r}")
    a.run("delete", APP, "Size")
    ok = wait_for(lambda: b.read("Size") is None)
    report(ok, "removal-travels", f"beta still reads Size {b.read('Size')!r}")

    # Writes while B's engine is stopped converge on the newest after it restarts.
    b.stop_syncthing()
    b.run("write", APP, "Color", "beta-offline")
    b.run("sync", "add", APP, "Offline")
    b.run("write", APP, "Offline", "written while stopped")
    time.sleep(0.05)
    a.run("write", APP, "Color", "alpha-newest")
    report(b.read("Color") == "beta-offline", "offline-write-local", f"beta reads {b.read('Color')!r}")
    b.start_syncthing()
    ok = wait_for(lambda: b.read("Color") == "alpha-newest" and a.read("Color") == "alpha-newest")
    report(ok, "offline-converges-newest", f"alpha {a.read('Color')!r}, beta {b.read('Color')!r}")
    ok = wait_for(lambda: a.read("Offline") == "written while stopped")
    report(ok, "offline-write-travels", f"alpha reads Offline {a.read('Offline')!r}")

    # A third machine that joins late gets the state.
    c.start_syncthing()
    ok = wait_for(lambda: c.read("Color") == "alpha-newest" and c.read("Offline") == "written while stopped")
    report(ok, "late-machine-gets-state", f"gamma reads Color {c.read('Color')!r}, Offline {c.read('Offline')!r}")
    report(c.read("Size") is None, "late-machine-sees-removal", f"gamma reads Size {c.read('Size')!r}")
    machines = c.run("sync", "status").stdout
    report(machines.count("last write") == 2, "late-machine-sees-machines", machines.strip())

    stop(watcher)
    if bench:
        benchmark(a, b, root, prefs, bench)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


def benchmark(a, b, root, prefs, n):
    """The time from `prefs write` returning on A to B's `prefs watch`
    printing the new value, n times."""
    log = os.path.join(root, "bench-watch.txt")
    with open(log, "w") as out:
        watcher = start([prefs, "watch", APP, "Bench"], b.env, stdout=out, stderr=subprocess.STDOUT)
    a.run("sync", "add", APP, "Bench")
    time.sleep(2)
    figures = []
    for i in range(n):
        value = f"v{i}"
        a.run("write", APP, "Bench", value)
        written = time.monotonic()
        if not wait_for(lambda: f'"{value}"' in open(log).read() or f"= {value};" in open(log).read(), 60):
            print(f"bench: write {i} never reached the observer")
            break
        figures.append(time.monotonic() - written)
    stop(watcher)
    if figures:
        figures.sort()
        print(f"bench: write on alpha -> beta's observer over Syncthing, {len(figures)} writes: "
              f"median {statistics.median(figures):.2f} s, min {figures[0]:.2f} s, max {figures[-1]:.2f} s")


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        stop_all()
