"""Test set-up: a private preferences sandbox and the installed library.

The tests run against the library installed under PREFS_TEST_PREFIX (``make
test-python`` passes build/stage; by default the repository's build/stage),
loaded through PREFS_LIBRARY, with every preference directory in a fresh
temporary directory. The environment is set here, before ``prefs`` is
imported: the library reads it at first use.
"""

from __future__ import annotations

import datetime
import itertools
import math
import os
import plistlib
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent.parent
PREFIX = Path(os.environ.get("PREFS_TEST_PREFIX", REPO / "build" / "stage")).resolve()
os.environ["PREFS_LIBRARY"] = str(PREFIX / "lib" / "libprefs.so.1")

SANDBOX = Path(tempfile.mkdtemp(prefix="prefs-python-"))
for name, sub in [
    ("HOME", "home"),
    ("XDG_CONFIG_HOME", "config"),
    ("XDG_CACHE_HOME", "cache"),
    ("XDG_DATA_HOME", "data"),
    ("XDG_DATA_DIRS", "data-dirs"),
    ("XDG_RUNTIME_DIR", "run"),
    ("PREFS_SYSTEM_DIR", "system"),
    ("PREFS_MANAGED_DIR", "managed"),
]:
    (SANDBOX / sub).mkdir(mode=0o700)
    os.environ[name] = str(SANDBOX / sub)
os.environ.update(TZ="UTC", LC_ALL="C.UTF-8", LANG="C.UTF-8")
os.environ.pop("LANGUAGE", None)
os.environ.pop("LD_LIBRARY_PATH", None)

try:
    import prefs  # noqa: E402  (after the environment above)
except ModuleNotFoundError:
    # Not installed: the package beside these tests.
    import sys

    sys.path.insert(0, str(HERE.parent))
    import prefs  # noqa: E402

# pytest's own options are not preferences of the tests.
prefs.set_arguments(["pytest"])

CONFIG = SANDBOX / "config"
MANAGED = SANDBOX / "managed"
SYSTEM = SANDBOX / "system"
PREFS = PREFIX / "bin" / "prefs"


def pytest_report_header(config: Any) -> str:
    return f"libprefs: {prefs.LIBRARY_PATH} ({prefs.LIBRARY_VERSION}), UIDs: {prefs.HAS_UID}"


def pytest_sessionfinish(session: Any, exitstatus: int) -> None:
    shutil.rmtree(SANDBOX, ignore_errors=True)


_counter = itertools.count()


@pytest.fixture
def app(request: Any) -> str:
    """An application ID no other test uses."""
    name = re.sub(r"[^A-Za-z0-9]+", "-", request.node.name).strip("-")[:80]
    return f"com.example.py.{name}.{next(_counter)}"


@pytest.fixture(scope="session")
def probe(tmp_path_factory: Any) -> Path:
    """tests/probe.c built against the installed library with pkg-config,
    as a C user builds it (an rpath to the private prefix)."""
    out = tmp_path_factory.mktemp("probe") / "probe"
    env = dict(os.environ, PKG_CONFIG_PATH=str(PREFIX / "lib" / "pkgconfig"))
    flags = subprocess.run(
        ["pkg-config", "--cflags", "--libs", "prefs"], env=env, check=True, capture_output=True, text=True
    ).stdout.split()
    cc = os.environ.get("CC", "cc")
    subprocess.run(
        [cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-o", str(out), str(HERE / "probe.c"), *flags,
         f"-Wl,-rpath,{PREFIX / 'lib'}"],
        env=env,
        check=True,
    )
    return out


def run_probe(
    probe: Path, *args: str, input: bytes = b"", binary: bool = False
) -> "subprocess.CompletedProcess[bytes]":
    env = dict(os.environ, PROBE_FORMAT="binary" if binary else "xml")
    return subprocess.run([str(probe), *args], input=input, capture_output=True, timeout=60, env=env)


def probe_value(probe: Path, *args: str, binary: bool = False) -> Any:
    """The value the C probe reads (``probe get|app ...``), through the
    property list it prints (XML, or binary); KeyError when absent."""
    done = run_probe(probe, *args, binary=binary)
    if done.returncode == 1:
        raise KeyError(args)
    assert done.returncode == 0, done.stderr.decode()
    return plistlib.loads(done.stdout)


def prefs_cmd(*args: str, check: bool = True) -> "subprocess.CompletedProcess[str]":
    done = subprocess.run([str(PREFS), *args], capture_output=True, text=True, timeout=60)
    if check:
        assert done.returncode == 0, f"prefs {' '.join(args)}: {done.stderr}"
    return done


def normalize(value: Any) -> Any:
    """A value with plistlib's conventions made prefs's: naive datetimes
    (plistlib's, UTC) made UTC-aware, tuples made lists."""
    if isinstance(value, datetime.datetime):
        return value.replace(tzinfo=datetime.timezone.utc) if value.tzinfo is None else value
    if isinstance(value, dict):
        return {k: normalize(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [normalize(v) for v in value]
    if isinstance(value, bytearray):
        return bytes(value)
    return value


def same(a: Any, b: Any) -> bool:
    """Strict equality: types too (1, 1.0 and True differ), NaN equals NaN,
    0.0 and -0.0 differ, datetimes compared as instants."""
    a, b = normalize(a), normalize(b)
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, float) or isinstance(b, float):
        if not (isinstance(a, float) and isinstance(b, float)):
            return False
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    if isinstance(a, plistlib.UID) or isinstance(b, plistlib.UID):
        return isinstance(a, plistlib.UID) and isinstance(b, plistlib.UID) and a.data == b.data
    if isinstance(a, dict) or isinstance(b, dict):
        return (
            isinstance(a, dict) and isinstance(b, dict) and a.keys() == b.keys()
            and all(same(a[k], b[k]) for k in a)
        )
    if isinstance(a, list) or isinstance(b, list):
        return (
            isinstance(a, list) and isinstance(b, list) and len(a) == len(b)
            and all(same(x, y) for x, y in zip(a, b))
        )
    return type(a) is type(b) and a == b


def naive(value: Any) -> Any:
    """``value`` with every datetime made naive UTC, as plistlib (before
    Python 3.13) writes them."""
    if isinstance(value, datetime.datetime):
        return value.astimezone(datetime.timezone.utc).replace(tzinfo=None) if value.tzinfo else value
    if isinstance(value, dict):
        return {k: naive(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [naive(v) for v in value]
    return value


def whole_seconds(value: Any) -> Any:
    """``value`` with every datetime truncated to the second, as the XML
    format stores dates."""
    if isinstance(value, datetime.datetime):
        return value.replace(microsecond=0)
    if isinstance(value, dict):
        return {k: whole_seconds(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [whole_seconds(v) for v in value]
    return value
