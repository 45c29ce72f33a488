"""prefs.loads / prefs.dumps against plistlib, over the shared corpora when
they sit beside the repository (../shared), and hostile input."""

from __future__ import annotations

import datetime
import math
import os
import plistlib
import random
from pathlib import Path

import pytest
from conftest import REPO, naive, same, whole_seconds

import prefs
from prefs._values import julian_before_1582

SHARED = REPO.parent / "shared"
CONFORMANCE = SHARED / "conformance"
REALWORLD = SHARED / "realworld" / "files"


def corpus(folder: Path) -> list:
    if not folder.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"{folder} is absent: NOT tested"))]
    files = sorted(
        f for f in folder.iterdir() if f.is_file() and f.suffix not in (".json", ".tsv", ".md")
    )
    return [pytest.param(f, id=f.name) for f in files]


def as_the_library_reads(value):
    """plistlib's value as the library reads the same file. Without UID
    values, a binary UID is a {"CF$UID": n} dictionary; with them, such a
    dictionary in XML (CoreFoundation's form, which plistlib leaves a
    dictionary) is a UID."""
    if isinstance(value, plistlib.UID) and not prefs.HAS_UID:
        return {"CF$UID": value.data}
    if isinstance(value, dict):
        if prefs.HAS_UID and list(value) == ["CF$UID"]:
            n = value["CF$UID"]
            if type(n) is int and 0 <= n <= 0xFFFFFFFF:
                return plistlib.UID(n)
        return {k: as_the_library_reads(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_the_library_reads(v) for v in value]
    return value


def has_old_dates(value) -> bool:
    """Whether ``value`` holds a date before 1582-10-15 and the library's
    calendar is Julian there (libprefs 1.2, as Foundation's formatter).
    plistlib's binary reader and writer count seconds in the proleptic
    Gregorian calendar, so there the two disagree by days, and plistlib
    cannot read the binary form of 0001-01-01 (Julian) at all."""
    if not julian_before_1582():
        return False
    if isinstance(value, datetime.datetime):
        return (value.year, value.month, value.day) < (1582, 10, 15)
    if isinstance(value, dict):
        return any(has_old_dates(v) for v in value.values())
    if isinstance(value, list):
        return any(has_old_dates(v) for v in value)
    return False


def check_against_plistlib(path: Path) -> None:
    data = path.read_bytes()
    try:
        expected = plistlib.loads(data)
    except Exception:
        # plistlib cannot read it (old-style text, .strings, UTF-16...):
        # the library may, or may refuse it, but only with its own error.
        try:
            prefs.loads(data)
        except prefs.Error:
            pass
        return
    got = prefs.loads(data)
    assert same(got, as_the_library_reads(expected))
    # Written back by the library, read by plistlib: the same value.
    binary = prefs.dumps(got, fmt=prefs.FMT_BINARY)
    if not has_old_dates(got):
        assert same(as_the_library_reads(plistlib.loads(binary)), got)
    assert same(prefs.loads(binary), got)
    try:
        xml = prefs.dumps(got)
    except prefs.UnrepresentableError:
        return  # text XML 1.0 cannot carry (a control character): binary only
    # XML holds whole seconds.
    assert same(as_the_library_reads(plistlib.loads(xml)), whole_seconds(got))
    # Written by plistlib, read by the library.
    try:
        theirs = plistlib.dumps(naive(expected))
    except TypeError:
        return  # plistlib writes no UID in XML
    assert same(prefs.loads(theirs), as_the_library_reads(plistlib.loads(theirs)))


@pytest.mark.parametrize("path", corpus(CONFORMANCE / "valid"))
def test_conformance_valid(path):
    prefs.loads(path.read_bytes())
    check_against_plistlib(path)


# Files of the invalid set the library reads as macOS does (README,
# "Deliberate differences"): a day or a second past its end rolls over.
READ_AS_MACOS_READS_THEM = {"date-day-32.plist", "date-leap-second.plist"}


@pytest.mark.parametrize("path", corpus(CONFORMANCE / "invalid"))
def test_conformance_invalid_is_refused_cleanly(path):
    if path is not None and path.name in READ_AS_MACOS_READS_THEM:
        assert isinstance(prefs.loads(path.read_bytes()), list)
        return
    with pytest.raises(prefs.Error) as caught:
        prefs.loads(path.read_bytes())
    assert isinstance(caught.value, ValueError)
    assert caught.value.code in (2, 3, 4)


@pytest.mark.parametrize("path", corpus(REALWORLD))
def test_realworld(path):
    check_against_plistlib(path)


GENERATED = [
    {"s": "text", "i": -5, "u": 2**64 - 1, "f": 2.5, "t": True, "b": b"\x00" * 100},
    [datetime.datetime(2026, 3, 4, 5, 6, 7), datetime.datetime(1, 1, 1), datetime.datetime(9999, 12, 31)],
    {"nested": [[[{"deep": [1]}]]], "empty": {}, "list": []},
    "plain string at the top",
    0.1,
    [math.inf, -math.inf, -0.0, 1e-310],
]


@pytest.mark.parametrize("value", GENERATED, ids=range(len(GENERATED)))
@pytest.mark.parametrize("fmt", [plistlib.FMT_XML, plistlib.FMT_BINARY], ids=["xml", "binary"])
def test_dumps_and_loads_agree_with_plistlib(value, fmt):
    ours = prefs.dumps(value, fmt=fmt)
    if fmt == plistlib.FMT_XML or not has_old_dates(value):
        assert same(plistlib.loads(ours), value)
    assert same(prefs.loads(ours), value)
    if fmt == plistlib.FMT_XML or not has_old_dates(value):
        assert same(prefs.loads(plistlib.dumps(naive(value), fmt=fmt)), value)


def test_nan_is_a_value_as_in_plistlib():
    for fmt in (prefs.FMT_XML, prefs.FMT_BINARY):
        assert math.isnan(prefs.loads(prefs.dumps(math.nan, fmt=fmt)))
        assert math.isnan(plistlib.loads(prefs.dumps(math.nan, fmt=fmt)))
    assert math.isnan(prefs.loads(plistlib.dumps(math.nan)))


def test_dumps_is_apples_xml():
    assert prefs.dumps({"b": 1, "a": [True]}) == (
        b'<?xml version="1.0" encoding="UTF-8"?>\n'
        b'<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" '
        b'"http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n'
        b'<plist version="1.0">\n<dict>\n\t<key>a</key>\n\t<array>\n\t\t<true/>\n\t</array>\n'
        b"\t<key>b</key>\n\t<integer>1</integer>\n</dict>\n</plist>\n"
    )


def test_load_and_dump_files(tmp_path):
    path = tmp_path / "x.plist"
    with open(path, "wb") as f:
        prefs.dump({"a": 1}, f, fmt=prefs.FMT_BINARY)
    assert path.read_bytes().startswith(b"bplist00")
    with open(path, "rb") as f:
        assert prefs.load(f) == {"a": 1}


# -- hostile input -------------------------------------------------------------

PLIST = b'<?xml version="1.0"?><plist version="1.0">%s</plist>'


@pytest.mark.parametrize(
    "body,error,words",
    [
        (b"<integer>99999999999999999999999</integer>", prefs.MalformedError, "integer"),
        (b"<integer>-9223372036854775809</integer>", prefs.MalformedError, "integer"),
        (b"<array>" * 300 + b"</array>" * 300, prefs.TooDeepError, "deeper"),
        (b"<real>fast</real>", prefs.MalformedError, "real"),
        (b"<date>2024-13-01T00:00:00Z</date>", prefs.MalformedError, "date"),
        (b"<data>!!!</data>", prefs.MalformedError, "base64"),
        (b"<dict><key>a</key></dict>", prefs.MalformedError, "line"),
        (b"<string>unclosed", prefs.MalformedError, "line"),
    ],
)
def test_hostile_xml_is_refused_cleanly(body, error, words):
    with pytest.raises(error, match=words) as caught:
        prefs.loads(PLIST % body)
    assert caught.value.code in (2, 3, 4)


def test_entities_are_refused_and_nothing_is_opened(tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("do not read")
    external = (
        b'<?xml version="1.0"?><!DOCTYPE plist [<!ENTITY x SYSTEM "file://'
        + str(secret).encode()
        + b'">]><plist><string>&x;</string></plist>'
    )
    with pytest.raises(prefs.ForbiddenMarkupError):
        prefs.loads(external)
    laughs = b'<?xml version="1.0"?><!DOCTYPE plist [<!ENTITY a "aaaaaaaaaa">' + b"".join(
        b'<!ENTITY %c "%s">' % (ord("b") + i, (b"&%c;" % (ord("a") + i)) * 10) for i in range(9)
    ) + b"]><plist><string>&j;</string></plist>"
    with pytest.raises(prefs.ForbiddenMarkupError):
        prefs.loads(laughs)


def test_deep_values_are_refused_both_ways(app):
    deep: list = []
    for _ in range(prefs.MAX_NESTING + 10):
        deep = [deep]
    with pytest.raises(prefs.TooDeepError):
        prefs.dumps(deep)
    p = prefs.Preferences(app)
    with pytest.raises(prefs.TooDeepError):
        p["deep"] = deep
    assert "deep" not in p
    # At the limit: 255 containers holding a value are the deepest
    # document; in a domain file the key's dictionary is one more level.
    ok: list = [1]
    for _ in range(254):
        ok = [ok]
    assert prefs.loads(prefs.dumps(ok)) == ok
    with pytest.raises(prefs.TooDeepError):
        prefs.dumps([ok])
    with pytest.raises(prefs.TooDeepError):
        p["over"] = ok
    p["ok"] = ok[0]
    assert p["ok"] == ok[0]
    assert "over" not in p


def test_a_small_value_standing_for_a_huge_one_is_refused(app):
    shared: list = ["x" * 100]
    for _ in range(40):
        shared = [shared, shared]
    with pytest.raises(prefs.UnrepresentableError, match="larger"):
        prefs.Preferences(app)["bomb"] = shared
    assert "bomb" not in prefs.Preferences(app)


def test_loads_takes_bytes():
    with pytest.raises(TypeError):
        prefs.loads("<plist/>")  # type: ignore[arg-type]


def test_mutated_documents_raise_only_library_errors():
    rng = random.Random(28)
    seeds = [
        prefs.dumps(v, fmt=fmt)
        for v in GENERATED
        for fmt in (prefs.FMT_XML, prefs.FMT_BINARY)
    ]
    for _ in range(3000):
        data = bytearray(rng.choice(seeds))
        for _ in range(rng.randint(1, 8)):
            at = rng.randrange(len(data))
            op = rng.randrange(3)
            if op == 0:
                data[at] = rng.randrange(256)
            elif op == 1:
                del data[at : at + rng.randint(1, 16)]
            else:
                data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        try:
            prefs.loads(bytes(data))
        except prefs.Error:
            pass


def test_values_past_the_text_limit_are_refused(app):
    p = prefs.Preferences(app)
    p["big"] = "kept"
    for value in ("x" * 10_000_001, b"\x00" * 8_000_000):
        try:
            p["big"] = value
        except prefs.UnrepresentableError as error:
            assert "big" in str(error)
            assert p["big"] == "kept"
        else:
            # A library that keeps such a domain in the binary format.
            assert p["big"] == value
            p["big"] = "kept"
