"""Every value type: round trips in this process, read back by a C program
and by the prefs command, written by C and read here; refusals."""

from __future__ import annotations

import datetime
import math
import plistlib

import pytest
from conftest import CONFIG, naive, prefs_cmd, probe_value, run_probe, same, whole_seconds

import prefs
from prefs._values import julian_before_1582

UTC = datetime.timezone.utc

# name -> (value, what `prefs read <app> <key>` prints, `prefs read-type`)
VALUES = {
    "string": ("Grüße, \u65e5\u672c <&> \"q\"", None, "string"),
    "empty-string": ("", "", "string"),
    "int": (14, "14", "integer"),
    "int-min": (-(2**63), "-9223372036854775808", "integer"),
    "int-max": (2**63 - 1, "9223372036854775807", "integer"),
    "uint-above-int64": (2**63, "9223372036854775808", "integer"),
    "uint-max": (2**64 - 1, "18446744073709551615", "integer"),
    "float": (0.1, "0.1", "float"),
    "float-big": (1e300, None, "float"),
    "float-neg-zero": (-0.0, None, "float"),
    "float-inf": (math.inf, None, "float"),
    "float-nan": (math.nan, None, "float"),
    "true": (True, "1", "boolean"),
    "false": (False, "0", "boolean"),
    "bytes": (b"\x00\x01\xfe\xff", "{length = 4, bytes = 0x0001feff}", "data"),
    "empty-bytes": (b"", None, "data"),
    "datetime": (
        datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
        "2026-01-02 03:04:05 +0000",
        "date",
    ),
    "datetime-julian": (datetime.datetime(1000, 3, 1, 12, 0, 0, tzinfo=UTC), None, "date"),
    "datetime-first": (datetime.datetime(1, 1, 1, tzinfo=UTC), None, "date"),
    "datetime-last": (datetime.datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC), None, "date"),
    "list": (["one", 2, 3.5, False, [], {}], None, "array"),
    "empty-list": ([], "(\n)", "array"),
    "dict": ({"k": "v", "nested": {"a": [1, {"b": b"x"}]}, "": "empty key"}, None, "dictionary"),
    "empty-dict": ({}, "{\n}", "dictionary"),
}


@pytest.fixture(params=sorted(VALUES))
def kind(request):
    return request.param


def test_round_trip_in_process(app, kind):
    p = prefs.Preferences(app)
    value = VALUES[kind][0]
    p["k"] = value
    assert same(p["k"], value)
    assert same(p.get("k"), value)
    assert "k" in p


def test_read_back_by_the_c_api(app, kind, probe):
    p = prefs.Preferences(app)
    value = VALUES[kind][0]
    p["k"] = value
    p.synchronize()
    # The file, read by a C program: the stored domain and the search list.
    assert same(probe_value(probe, "get", app, "k"), value)
    assert same(probe_value(probe, "app", app, "k"), value)
    done = run_probe(probe, "type", app, "k")
    assert done.stdout.decode().strip() == {"float": "real", "date": "date"}.get(
        VALUES[kind][2], VALUES[kind][2]
    )


def test_read_back_by_the_prefs_command(app, kind):
    p = prefs.Preferences(app)
    value, text, type_name = VALUES[kind]
    p["k"] = value
    p.synchronize()
    assert prefs_cmd("read-type", app, "k").stdout == f"Type is {type_name}\n"
    out = prefs_cmd("read", app, "k").stdout
    if text is not None:
        assert out == text + "\n"
    elif isinstance(value, str):
        assert out == value + "\n"
    # The whole domain as XML, read by plistlib.
    exported = plistlib.loads(prefs_cmd("export", app, "-").stdout.encode())
    assert same(exported, {"k": value})


def test_every_type_at_once_through_the_file(app, probe):
    p = prefs.Preferences(app)
    values = {name: v[0] for name, v in VALUES.items()}
    p.domain().update(values)
    p.synchronize()
    with open(CONFIG / f"{app}.plist", "rb") as f:
        on_disk = plistlib.load(f)
    assert same(on_disk, values)
    assert same(p.domain().copy(), values)


def test_written_by_c_read_by_python(app, kind, probe):
    value = VALUES[kind][0]
    # plistlib's XML (its datetimes are naive UTC; its binary writer counts
    # days in the proleptic Gregorian calendar, the XML text does not).
    done = run_probe(probe, "set", app, "k", input=plistlib.dumps(naive(value)))
    assert done.returncode == 0, done.stderr
    p = prefs.Preferences(app)
    assert same(p["k"], value)
    assert p.source("k") == prefs.Source(prefs.Layer.APP, app)


def test_sub_second_dates_are_kept_in_memory_and_whole_on_disk(app, probe):
    p = prefs.Preferences(app)
    when = datetime.datetime(2026, 5, 6, 7, 8, 9, 987654, tzinfo=UTC)
    p["when"] = when
    assert p["when"] == when
    p.synchronize()
    assert same(probe_value(probe, "get", app, "when"), when.replace(microsecond=0))


def test_datetimes_in_other_zones_and_naive_ones(app):
    p = prefs.Preferences(app)
    paris = datetime.timezone(datetime.timedelta(hours=2))
    p["aware"] = datetime.datetime(2026, 7, 1, 12, 0, tzinfo=paris)
    assert p["aware"] == datetime.datetime(2026, 7, 1, 10, 0, tzinfo=UTC)
    assert p["aware"].tzinfo is UTC
    p["naive"] = datetime.datetime(2026, 7, 1, 12, 0)  # UTC, as plistlib takes it
    assert p["naive"] == datetime.datetime(2026, 7, 1, 12, 0, tzinfo=UTC)


def test_dates_before_1582_keep_the_fields_of_the_xml_text(app):
    # The text a property list holds, as plistlib reads it. Up to libprefs
    # 1.2 the library's calendar is Julian before 1582-10-15 (Foundation's
    # formatter), later ones proleptic Gregorian (CoreFoundation's, and
    # Python's): either way a datetime keeps its fields through it.
    when = datetime.datetime(1000, 3, 1, tzinfo=UTC)
    xml = prefs.dumps(when)
    assert b"<date>1000-03-01T00:00:00Z</date>" in xml
    assert plistlib.loads(xml) == when.replace(tzinfo=None)
    assert prefs.loads(xml) == when
    p = prefs.Preferences(app)
    p["old"] = when
    assert p["old"] == when
    gap = datetime.datetime(1582, 10, 10, tzinfo=UTC)
    if julian_before_1582():
        # Days that calendar skips are refused, not moved.
        with pytest.raises(ValueError, match="1582-10-10"):
            p["gap"] = gap
        assert "gap" not in p
    else:
        p["gap"] = gap
        assert p["gap"] == gap
        assert b"<date>1582-10-10T00:00:00Z</date>" in prefs.dumps(gap)


def test_other_sequences_and_bytes_like(app):
    p = prefs.Preferences(app)
    p["tuple"] = (1, "two")
    assert p["tuple"] == [1, "two"]
    p["bytearray"] = bytearray(b"ab")
    assert p["bytearray"] == b"ab" and type(p["bytearray"]) is bytes
    p["memoryview"] = memoryview(b"cd")
    assert p["memoryview"] == b"cd"


def test_shared_sub_values_are_read_as_plistlib_reads_them(app):
    part = {"x": [1, 2]}
    p = prefs.Preferences(app)
    p["shared"] = [part, part, {"again": part}]
    assert p["shared"] == [part, part, {"again": part}]


@pytest.mark.skipif(not prefs.HAS_UID, reason="the library has no UID values")
def test_uid_round_trip(app, probe):
    p = prefs.Preferences(app)
    p["uid"] = prefs.UID(7)
    assert p["uid"] == prefs.UID(7) and isinstance(p["uid"], prefs.UID)
    p["plistlib-uid"] = plistlib.UID(8)
    assert p["plistlib-uid"] == prefs.UID(8)
    p.synchronize()
    assert same(probe_value(probe, "get", app, "uid", binary=True), plistlib.UID(7))
    binary = prefs.dumps({"u": prefs.UID(9)}, fmt=prefs.FMT_BINARY)
    assert plistlib.loads(binary) == {"u": plistlib.UID(9)}
    # XML holds a UID as CoreFoundation writes it, and reads it back.
    xml = prefs.dumps([prefs.UID(10)])
    assert plistlib.loads(xml) == [{"CF$UID": 10}]
    assert prefs.loads(xml) == [prefs.UID(10)]
    with pytest.raises(ValueError, match=r"big.*2\*\*32-1"):
        p["big"] = plistlib.UID(2**32)
    assert "big" not in p


@pytest.mark.skipif(prefs.HAS_UID, reason="the library has UID values")
def test_uid_refused_without_library_support(app):
    p = prefs.Preferences(app)
    p["kept"] = {"a": 1}
    with pytest.raises(TypeError, match=r"kept\['u'\].*no UID"):
        p["kept"] = {"a": 2, "u": prefs.UID(1)}
    assert p["kept"] == {"a": 1}
    with pytest.raises(TypeError, match="no UID"):
        prefs.dumps(prefs.UID(1), fmt=prefs.FMT_BINARY)
    # A binary UID still reads, as the library reads it.
    data = plistlib.dumps({"u": plistlib.UID(3)}, fmt=plistlib.FMT_BINARY)
    assert prefs.loads(data) == {"u": {"CF$UID": 3}}


def test_uid_is_plistlibs():
    assert prefs.UID(5) == plistlib.UID(5)
    assert isinstance(prefs.UID(5), plistlib.UID)
    with pytest.raises((ValueError, TypeError)):
        prefs.UID(-1)


REFUSED = [
    (None, TypeError, "None"),
    (object(), TypeError, "object"),
    ({1, 2}, TypeError, "set"),
    (datetime.date(2026, 1, 1), TypeError, "date"),
    ([1, None], TypeError, r"k\[1\]"),
    ({"a": {1: "x"}}, TypeError, r"k\['a'\]\[1\]"),
    (2**64, ValueError, "2\\*\\*64-1"),
    (-(2**63) - 1, ValueError, "outside"),
    ([10**100], ValueError, r"k\[0\]"),
    ("\ud800", ValueError, "Unicode"),
    ({"nul\x00key": 1}, ValueError, "NUL"),
]


@pytest.mark.parametrize("value,error,match", REFUSED, ids=[repr(v[0])[:30] for v in REFUSED])
def test_refused_values_name_the_key_and_store_nothing(app, value, error, match):
    p = prefs.Preferences(app)
    p["k"] = "before"
    with pytest.raises(error, match=match) as caught:
        p["k"] = value
    assert "k" in str(caught.value)
    assert p["k"] == "before"
    with pytest.raises(error):
        p["fresh"] = value
    assert "fresh" not in p
    p.synchronize()
    assert p.domain().copy() == {"k": "before"}


@pytest.mark.parametrize("text", ["bell \x07", "nul \x00 inside"])
def test_text_xml_cannot_carry_is_refused_or_kept_exactly(app, text, probe):
    # libprefs 1.2 refuses it (its domain files are XML); a library that
    # keeps such a domain in the binary format stores it. Either way
    # nothing is changed silently.
    p = prefs.Preferences(app)
    p["k"] = "before"
    try:
        p["k"] = {"a": text}
    except prefs.UnrepresentableError as error:
        assert "k" in str(error) and error.code == 5
        assert p["k"] == "before"
        return
    assert p["k"] == {"a": text}
    p.synchronize()
    assert probe_value(probe, "get", app, "k", binary=True) == {"a": text}


def test_cycles_are_refused():
    cycle: list = []
    cycle.append(cycle)
    with pytest.raises(ValueError, match="contains itself"):
        prefs.dumps(cycle)
    loop: dict = {}
    loop["self"] = [loop]
    with pytest.raises(ValueError, match="contains itself"):
        prefs.dumps(loop)


def test_keys_must_be_text(app):
    p = prefs.Preferences(app)
    with pytest.raises(TypeError):
        p[1] = "x"  # type: ignore[index]
    with pytest.raises(ValueError):
        p["a\x00b"] = "x"
    assert 1 not in p
