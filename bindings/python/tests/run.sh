#!/usr/bin/env bash
#
# run.sh <prefix> — the Python package's tests (pytest) against the library
# installed under <prefix> (`make install PREFIX=<prefix>`).
#
# pytest and setuptools come from PyPI, pinned (PYTEST_VERSION,
# SETUPTOOLS_VERSION), into a virtual environment cached outside the tree,
# keyed by the versions: ${XDG_CACHE_HOME:-~/.cache}/libprefs/pytest-<v>
# (made once; a half-made one is made again). The package is installed the
# way a user installs it (pip install ./bindings/python, from a copy, so
# the tree gets no build files) into a scratch directory, and the tests
# import that copy. PREFS_LIBRARY points it at <prefix>'s library.
#
# Exit status: pytest's, except that "no tests collected" (5) is a
# failure too.

set -u

if [ $# -ne 1 ] || [ ! -e "$1/lib/libprefs.so.1" ]; then
    echo "usage: $0 <prefix> (with <prefix>/lib/libprefs.so.1 installed)" >&2
    exit 2
fi
PREFIX=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
PACKAGE=$(dirname "$HERE")
PYTHON=${PYTHON:-python3}
PYTEST_VERSION=${PYTEST_VERSION:-8.4.2}
SETUPTOOLS_VERSION=${SETUPTOOLS_VERSION:-80.9.0}
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/libprefs
VENV=$CACHE/pytest-$PYTEST_VERSION-setuptools-$SETUPTOOLS_VERSION-$("$PYTHON" -c 'import sys; print("py%d.%d" % sys.version_info[:2])')

if [ ! -e "$VENV/.complete" ]; then
    echo "installing pytest==$PYTEST_VERSION setuptools==$SETUPTOOLS_VERSION into $VENV"
    rm -rf "$VENV"
    mkdir -p "$CACHE"
    if "$PYTHON" -m venv "$VENV" &&
        "$VENV/bin/pip" install --quiet --disable-pip-version-check \
            "pytest==$PYTEST_VERSION" "setuptools==$SETUPTOOLS_VERSION"; then
        touch "$VENV/.complete"
    else
        rm -rf "$VENV"
        echo "FAIL  cannot install pytest==$PYTEST_VERSION from PyPI" >&2
        exit 1
    fi
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/prefs-python.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir "$WORK/src"
cp -R "$PACKAGE/pyproject.toml" "$PACKAGE/README.md" "$PACKAGE/prefs" "$WORK/src/"
if ! "$VENV/bin/pip" install --quiet --disable-pip-version-check --no-build-isolation --no-deps \
    --no-cache-dir --target "$WORK/site" "$WORK/src" >"$WORK/pip.log" 2>&1; then
    cat "$WORK/pip.log" >&2
    echo "FAIL  pip install ./bindings/python" >&2
    exit 1
fi

# From the scratch directory: `python -m` puts the working directory first
# on sys.path, and the tree's prefs/ must not shadow the installed copy.
cd "$WORK" || exit 2
PYTHONPATH=$WORK/site PREFS_TEST_PREFIX=$PREFIX PREFS_TEST_SITE=$WORK/site \
    PYTHONDONTWRITEBYTECODE=1 "$VENV/bin/python" -m pytest -p no:cacheprovider -q \
    --rootdir "$PACKAGE" -c "$PACKAGE/pyproject.toml" "$PACKAGE/tests"
status=$?
if [ $status -eq 5 ]; then
    echo "FAIL  pytest collected no tests" >&2
    exit 1
fi
exit $status
