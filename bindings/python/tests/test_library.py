"""Finding the library."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import PREFIX, REPO

import prefs


def run(env_library):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    if env_library is None:
        env.pop("PREFS_LIBRARY", None)
    else:
        env["PREFS_LIBRARY"] = env_library
    return subprocess.run(
        [sys.executable, "-c", "import prefs; print(prefs.LIBRARY_PATH, prefs.LIBRARY_VERSION)"],
        capture_output=True,
        text=True,
        env=env,
    )


def test_prefs_library_names_the_file_or_its_directory():
    done = run(str(PREFIX / "lib" / "libprefs.so.1"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == str(PREFIX / "lib" / "libprefs.so.1")
    done = run(str(PREFIX / "lib"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == str(PREFIX / "lib" / "libprefs.so.1")


def test_a_missing_library_says_how_to_point_at_it(tmp_path):
    done = run(str(tmp_path / "nothing" / "libprefs.so.1"))
    assert done.returncode == 1
    assert "LibraryNotFoundError" in done.stderr
    assert "PREFS_LIBRARY" in done.stderr and str(tmp_path / "nothing") in done.stderr
    assert issubclass(prefs.LibraryNotFoundError, ImportError)


def test_the_tests_use_the_freshly_installed_library():
    assert prefs.LIBRARY_PATH == str(PREFIX / "lib" / "libprefs.so.1")
    major, minor, patch = (int(x) for x in (REPO / "VERSION").read_text().split("."))
    assert prefs.LIBRARY_VERSION == major * 10000 + minor * 100 + patch
    assert prefs.__version__ == (REPO / "VERSION").read_text().strip()


def test_a_library_that_is_not_libprefs_is_refused():
    done = run("libc.so.6")
    assert done.returncode == 1
    assert "LibraryNotFoundError" in done.stderr and "PrefsGetVersionNumber" in done.stderr
