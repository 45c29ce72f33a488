"""Other processes: concurrent writers, and changes reaching observers and
asyncio streams."""

from __future__ import annotations

import asyncio
import gc
import os
import plistlib
import subprocess
import sys
import threading
import time

import pytest
from conftest import CONFIG, PREFS, prefs_cmd

import prefs

N = 150


def test_python_and_c_writers_on_one_domain_lose_nothing(app, probe):
    c_writer = subprocess.Popen([str(probe), "count", app, "c", str(N)], stderr=subprocess.PIPE)
    p = prefs.Preferences(app)
    for i in range(N):
        p[f"py{i}"] = i
        p.synchronize()
    assert c_writer.wait(timeout=120) == 0, c_writer.stderr.read()
    p.synchronize()
    expected = {**{f"py{i}": i for i in range(N)}, **{f"c{i}": i for i in range(N)}}
    with open(CONFIG / f"{app}.plist", "rb") as f:
        assert plistlib.load(f) == expected
    # This process sees the C writer's keys too.
    assert {k: p[k] for k in expected} == expected


def test_python_threads_writing_one_domain(app):
    p = prefs.Preferences(app)

    def writer(t: int) -> None:
        q = prefs.Preferences(app)
        for i in range(50):
            q[f"t{t}.{i}"] = i
            if i % 10 == 0:
                q.synchronize()

    threads = [threading.Thread(target=writer, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    p.synchronize()
    with open(CONFIG / f"{app}.plist", "rb") as f:
        assert len(plistlib.load(f)) == 200


def test_prefs_write_reaches_an_observer(app):
    p = prefs.Preferences(app)
    heard: list = []
    event = threading.Event()

    def callback(change: prefs.Change) -> None:
        # On the library's thread; reading back into the library is allowed.
        heard.append((change, p.get(change.key), threading.current_thread() is threading.main_thread()))
        event.set()

    with p.observe("Theme", callback) as observation:
        prefs_cmd("write", app, "Theme", "-string", "dark")
        assert event.wait(20), "no change heard"
        assert heard[0] == (prefs.Change(app, "Theme"), "dark", False)
        assert observation.active
    assert not observation.active
    count = len(heard)
    prefs_cmd("write", app, "Theme", "-string", "light")
    assert p["Theme"] == "light"
    time.sleep(0.5)
    assert len(heard) == count


def test_observer_of_every_key_hears_own_writes_once(app):
    p = prefs.Preferences(app)
    heard: list = []
    event = threading.Event()

    def callback(change: prefs.Change) -> None:
        heard.append(change.key)
        if change.key == "last":
            event.set()

    observation = p.observe(None, callback)
    try:
        p["a"] = 1
        p["a"] = 1  # unchanged: not reported
        p["b"] = 2
        p["last"] = True
        assert event.wait(20)
        assert heard == ["a", "b", "last"]
    finally:
        observation.cancel()
    observation.cancel()  # a second cancel does nothing


def test_a_callback_that_raises_does_not_stop_others(app):
    p = prefs.Preferences(app)
    event = threading.Event()
    errors: list = []
    import sys

    old = sys.unraisablehook
    sys.unraisablehook = lambda info: errors.append(info.exc_value)
    try:
        with p.observe("k", lambda c: 1 / 0), p.observe("k", lambda c: event.set()):
            p["k"] = 1
            assert event.wait(20)
            for _ in range(100):
                if errors:
                    break
                time.sleep(0.05)
    finally:
        sys.unraisablehook = old
    assert errors and isinstance(errors[0], ZeroDivisionError)


def test_prefs_write_reaches_an_asyncio_stream(app):
    p = prefs.Preferences(app)

    async def main() -> list:
        got = []
        async with p.changes() as stream:
            writer = await asyncio.create_subprocess_exec(
                str(PREFS), "write", app, "Volume", "-int", "7"
            )
            assert await writer.wait() == 0
            change = await asyncio.wait_for(stream.__anext__(), 20)
            got.append((change, p.get(change.key)))
            # The loop's own thread delivered it.
            assert asyncio.get_running_loop() is not None
        return got

    assert asyncio.run(main()) == [(prefs.Change(app, "Volume"), 7)]


def test_asyncio_stream_of_one_key_merges_and_ends(app):
    p = prefs.Preferences(app)

    async def main() -> list:
        stream = p.changes("k")
        for i in range(20):
            p["k"] = i
            p["other"] = i
        await asyncio.sleep(0.5)
        first = await asyncio.wait_for(stream.__anext__(), 20)
        # Twenty changes of one key not yet consumed are one entry.
        assert stream._queue.qsize() == 0
        await stream.aclose()
        rest = [c async for c in stream]
        return [first, rest, p["k"]]

    assert asyncio.run(main()) == [prefs.Change(app, "k"), [], 19]


def test_a_dropped_stream_removes_its_observer(app):
    p = prefs.Preferences(app)
    from prefs import _observe

    async def main() -> None:
        before = len(_observe._live)
        stream = p.changes("k")
        assert len(_observe._live) == before + 1
        del stream
        gc.collect()
        assert len(_observe._live) == before

    asyncio.run(main())


def test_observers_added_and_cancelled_from_many_threads(app):
    p = prefs.Preferences(app)
    stop = threading.Event()
    heard = []

    def churn() -> None:
        while not stop.is_set():
            with p.observe(None, heard.append):
                pass

    threads = [threading.Thread(target=churn) for _ in range(4)]
    for t in threads:
        t.start()
    try:
        for i in range(300):
            p[f"k{i % 7}"] = i
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "an observer call deadlocked"


def test_exit_with_observers_and_writes_in_flight(app, tmp_path):
    # The interpreter exits while the library's thread is delivering: no
    # crash, no hang, and the writes reach the disk (the library's exit
    # handler).
    script = tmp_path / "exit.py"
    script.write_text(
        "import prefs\n"
        f"p = prefs.Preferences({app!r})\n"
        "p.observe(None, lambda c: sum(range(1000)))\n"
        "s = p.observe('k', print)\n"
        "for i in range(500):\n"
        "    p['k'] = i\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    with open(CONFIG / f"{app}.plist", "rb") as f:
        assert plistlib.load(f) == {"k": 499}
