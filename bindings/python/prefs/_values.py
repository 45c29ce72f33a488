"""Conversion between Python values and the library's property-list values.

Python to library (:func:`to_ref`) and back (:func:`to_python`). Internal:
the rules are documented in the package docstring and doc/behaviour.md ("Python").
"""

from __future__ import annotations

import ctypes
import datetime
import math
import plistlib
from collections.abc import Mapping
from ctypes import c_double, c_int64, c_uint64, c_void_p, string_at
from typing import Any, Dict, List, Optional, Set

from . import _lib
from ._errors import TooDeepError, UnrepresentableError, last_error

#: The deepest nesting the library handles (PREFS_MAX_NESTING).
MAX_NESTING = 256


class UID(plistlib.UID):
    """A UID: an object reference of a keyed archive (``CF$UID``), an
    integer 0 ... 2**32-1 (a larger one is refused when stored).

    A subclass of :class:`plistlib.UID`, so the two compare equal and
    either can be stored. Storing one needs a library that has UIDs
    (``prefs.HAS_UID``); otherwise it is refused with a :class:`TypeError`
    and nothing is stored.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return f"prefs.UID({self.data!r})"


UTC = datetime.timezone.utc
_EPOCH_ORDINAL = datetime.date(1970, 1, 1).toordinal()
# Days since 1970-01-01 of 1582-10-15: libprefs up to 1.2 (as Foundation's
# formatter) counts dates before it in the Julian calendar; later versions
# write them as CoreFoundation does, proleptic Gregorian, as Python does.
_GREGORIAN_CUTOVER = -141427
_JULIAN_EPOCH_SHIFT = 719470
_julian: Optional[bool] = None


def julian_before_1582() -> bool:
    """Whether the running library's calendar is Julian before 1582-10-15,
    learnt once from the text it writes for Foundation's distantPast
    (Julian 0001-01-01, proleptic Gregorian 0000-12-30)."""
    global _julian
    if _julian is None:
        found = False
        ref = _lib.DateCreate(-62135769600.0)
        error = c_void_p()
        data = _lib.PropertyListCreateData(ref, _lib.FORMAT_XML, ctypes.byref(error))
        _lib.Release(ref)
        if data:
            text = string_at(_lib.DataGetBytePtr(data), _lib.DataGetLength(data))
            _lib.Release(data)
            found = b"<date>0001-01-01T00:00:00Z</date>" in text
        else:
            _lib.Release(error.value)
        _julian = found
    return _julian


def _julian_days(year: int, month: int, day: int) -> int:
    y = year - 1 if month <= 2 else year
    cycle = y // 4
    yoc = y - cycle * 4
    mp = (month + 9) % 12
    doy = (153 * mp + 2) // 5 + day - 1
    return cycle * 1461 + yoc * 365 + doy - _JULIAN_EPOCH_SHIFT


def _julian_civil(z: int) -> "tuple[int, int, int]":
    n = z + _JULIAN_EPOCH_SHIFT
    cycle = n // 1461
    doc = n - cycle * 1461
    yoc = min(doc // 365, 3)
    doy = doc - yoc * 365
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return cycle * 4 + yoc + (1 if m <= 2 else 0), m, d


def datetime_to_unix(value: datetime.datetime, path: str) -> float:
    """Seconds since 1970 of ``value`` as the library's calendar counts
    (naive datetimes are UTC, as plistlib takes them; with a library whose
    dates before 1582-10-15 are Julian, the fields are read as Julian, so
    that the text written is the text plistlib writes)."""
    if value.tzinfo is not None and value.utcoffset() is not None:
        try:
            value = value.astimezone(UTC)
        except OverflowError:
            raise UnrepresentableError(
                f"{path}: {value!r} is outside the years 1-9999 in UTC", 5, path
            ) from None
    ymd = (value.year, value.month, value.day)
    if ymd >= (1582, 10, 15) or not julian_before_1582():
        days = value.toordinal() - _EPOCH_ORDINAL
    elif ymd >= (1582, 10, 5):
        raise UnrepresentableError(
            f"{path}: {value.date()} does not exist in the property-list calendar "
            "(Julian until 1582-10-04, Gregorian from 1582-10-15)",
            5,
            path,
        )
    else:
        days = _julian_days(*ymd)
    seconds = days * 86400 + value.hour * 3600 + value.minute * 60 + value.second
    return seconds + value.microsecond / 1e6


def unix_to_datetime(t: float, path: str) -> datetime.datetime:
    """The UTC datetime of a library date (the inverse of
    :func:`datetime_to_unix`, to the microsecond)."""
    if not math.isfinite(t):
        raise UnrepresentableError(f"{path}: the date {t} is not a point in time", 5, path)
    whole = math.floor(t)
    micro = round((t - whole) * 1e6)
    if micro >= 1_000_000:
        whole, micro = whole + 1, micro - 1_000_000
    days, seconds = divmod(int(whole), 86400)
    try:
        if days >= _GREGORIAN_CUTOVER or not julian_before_1582():
            date = datetime.date.fromordinal(days + _EPOCH_ORDINAL)
        else:
            y, m, d = _julian_civil(days)
            date = datetime.date(y, m, d)
    except (ValueError, OverflowError):
        raise UnrepresentableError(
            f"{path}: the date {t} (seconds since 1970) is outside the years 1-9999 "
            "that Python's datetime holds",
            5,
            path,
        ) from None
    return datetime.datetime(
        date.year,
        date.month,
        date.day,
        seconds // 3600,
        seconds // 60 % 60,
        seconds % 60,
        micro,
        tzinfo=UTC,
    )


def _refusal(path: str) -> Exception:
    """The library's error for the call that just refused to build a
    value at ``path``."""
    error = last_error(path)
    if error is None:
        return UnrepresentableError(f"{path}: refused by the library", 5, path)
    error.args = (f"{path}: {error.message}",)
    return error


def _item(path: str, key: Any) -> str:
    return f"{path}[{key!r}]"


class _Encoder:
    """One conversion of a Python value into library values: containers
    met twice (shared sub-values) are converted once, so a small value
    that shares its parts level after level costs what it holds, not what
    it stands for (the library then refuses it if its document could not
    fit); a container that holds itself is refused."""

    __slots__ = ("made", "memo", "active")

    def __init__(self) -> None:
        self.made: List[int] = []
        self.memo: Dict[int, int] = {}
        self.active: Set[int] = set()

    def encode(self, value: Any, path: str, depth: int) -> int:
        kind = type(value)
        if kind is str:
            return self._keep(_string(value, path))
        if kind is bool:
            return self._keep(_lib.BooleanCreate(value))
        if kind is int or (isinstance(value, int) and not isinstance(value, bool)):
            return self._keep(_integer(int(value), path))
        if isinstance(value, bool):
            return self._keep(_lib.BooleanCreate(bool(value)))
        if kind is float or isinstance(value, float):
            return self._keep(_lib.NumberCreateDouble(float(value)))
        if isinstance(value, str):
            return self._keep(_string(str(value), path))
        if isinstance(value, (bytes, bytearray, memoryview)):
            return self._keep(_data(bytes(value), path))
        if isinstance(value, datetime.datetime):
            return self._keep(_lib.DateCreate(datetime_to_unix(value, path)))
        if isinstance(value, plistlib.UID):
            return self._keep(_uid(value, path))
        if isinstance(value, (list, tuple)) or isinstance(value, Mapping):
            return self._container(value, path, depth)
        if value is None:
            raise TypeError(f"{path}: None is not a property-list value (del removes a key)")
        raise TypeError(
            f"{path}: a {type(value).__name__} is not a property-list value "
            "(str, int, float, bool, bytes, datetime, list, dict or UID)"
        )

    def _keep(self, ref: int) -> int:
        self.made.append(ref)
        return ref

    def _container(self, value: Any, path: str, depth: int) -> int:
        ident = id(value)
        done = self.memo.get(ident)
        if done is not None:
            return done
        if ident in self.active:
            raise ValueError(f"{path}: the value contains itself")
        if depth >= MAX_NESTING:
            raise TooDeepError(
                f"{path}: nested deeper than {MAX_NESTING} levels (PREFS_MAX_NESTING)", 4, path
            )
        self.active.add(ident)
        try:
            if isinstance(value, Mapping):
                keys = []
                refs = []
                for k, v in value.items():
                    if not isinstance(k, str):
                        raise TypeError(
                            f"{_item(path, k)}: a dictionary key must be a str, not "
                            f"{type(k).__name__}"
                        )
                    keys.append(_key_bytes(k, _item(path, k)))
                    refs.append(self.encode(v, _item(path, k), depth + 1))
                n = len(keys)
                ref = _lib.DictionaryCreate(
                    (ctypes.c_char_p * n)(*keys), (c_void_p * n)(*refs), n
                )
            else:
                refs = [self.encode(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(value)]
                n = len(refs)
                ref = _lib.ArrayCreate((c_void_p * n)(*refs), n)
        finally:
            self.active.discard(ident)
        if not ref:
            raise _refusal(path)
        self.memo[ident] = ref
        return self._keep(ref)

    def release(self, keep: Optional[int]) -> None:
        for ref in self.made:
            if ref != keep:
                _lib.Release(ref)
        self.made.clear()


def _key_bytes(key: str, path: str) -> bytes:
    try:
        raw = key.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ValueError(f"{path}: the key is not valid Unicode text ({error.reason})") from None
    if b"\0" in raw:
        raise ValueError(f"{path}: a key cannot hold a NUL character")
    return raw


def _string(value: str, path: str) -> int:
    try:
        raw = value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ValueError(f"{path}: the string is not valid Unicode text ({error.reason})") from None
    ref: int = _lib.StringCreateWithBytes(raw, len(raw))
    if not ref:
        raise _refusal(path)
    return ref


def _integer(value: int, path: str) -> int:
    ref: int
    if -(1 << 63) <= value < (1 << 63):
        ref = _lib.NumberCreateInt64(value)
        return ref
    if 0 <= value < (1 << 64):
        ref = _lib.NumberCreateUInt64(value)
        return ref
    raise ValueError(
        f"{path}: the integer {value} is outside -2**63 ... 2**64-1, the range a "
        "property list holds"
    )


def _data(value: bytes, path: str) -> int:
    ref: int = _lib.DataCreate(value, len(value))
    if not ref:
        raise _refusal(path)
    return ref


def _uid(value: plistlib.UID, path: str) -> int:
    if _lib.TYPE_UID is None:
        raise TypeError(
            f"{path}: this libprefs ({_lib.path}, version {_lib.version_number}) has no UID "
            "values (PrefsUIDCreate): a UID cannot be stored or written with it"
        )
    if not 0 <= value.data <= 0xFFFFFFFF:
        raise ValueError(
            f"{path}: the UID {value.data} is outside 0 ... 2**32-1, the range a property "
            "list holds"
        )
    ref: int = _lib.UIDCreate(value.data)
    if not ref:
        raise _refusal(path)
    return ref


def to_ref(value: Any, path: str) -> int:
    """A new (+1) library value for ``value``; raises TypeError or
    ValueError (prefs.Error subclasses among them) naming ``path`` when
    it cannot be one, having made nothing."""
    kind = type(value)
    # The common scalars without the encoder's bookkeeping.
    if kind is str:
        return _string(value, path)
    if kind is int:
        return _integer(value, path)
    ref: int
    if kind is bool:
        ref = _lib.BooleanCreate(value)
        return ref
    if kind is float:
        ref = _lib.NumberCreateDouble(value)
        return ref
    encoder = _Encoder()
    top = None
    try:
        top = encoder.encode(value, path, 0)
        return top
    finally:
        encoder.release(top)


def _text(ref: int) -> str:
    return string_at(_lib.StringGetCString(ref), _lib.StringGetLength(ref)).decode("utf-8")


def to_python(ref: int, path: str, memo: Optional[Dict[int, Any]] = None) -> Any:
    """The Python value of the library value ``ref`` (borrowed). A
    container the value holds twice is converted once and shared, as
    plistlib's binary reader does."""
    t = _lib.GetType(ref)
    if t == 1:
        return _text(ref)
    if t == 2:
        # (ctypes passes a c_int64 to a POINTER(c_int64) parameter by
        # reference itself, cheaper than byref.)
        out = c_int64()
        if _lib.NumberGetInt64(ref, out):
            return out.value
        big = c_uint64()
        _lib.NumberGetUInt64(ref, big)
        return big.value
    if t == 3:
        real = c_double()
        _lib.NumberGetDouble(ref, real)
        return real.value
    if t == 4:
        return bool(_lib.BooleanGetValue(ref))
    if t == 6:
        return string_at(_lib.DataGetBytePtr(ref), _lib.DataGetLength(ref))
    if t == 5:
        return unix_to_datetime(_lib.DateGetUnixTime(ref), path)
    if memo is None:
        memo = {}
    if t == 7 or t == 8:
        seen = memo.get(ref)
        if seen is not None:
            return seen
        if t == 7:
            items: List[Any] = []
            memo[ref] = items
            for i in range(_lib.ArrayGetCount(ref)):
                items.append(
                    to_python(_lib.ArrayGetValueAtIndex(ref, i), f"{path}[{i}]", memo)
                )
            return items
        table: Dict[str, Any] = {}
        memo[ref] = table
        keys = _lib.DictionaryCopyKeys(ref)
        try:
            for i in range(_lib.ArrayGetCount(keys)):
                key = _text(_lib.ArrayGetValueAtIndex(keys, i))
                if "\0" in key:
                    raise UnrepresentableError(
                        f"{_item(path, key)}: a key holding NUL cannot be read through the "
                        "C API",
                        5,
                        path,
                    )
                table[key] = to_python(
                    _lib.DictionaryGetValue(ref, key.encode("utf-8")), _item(path, key), memo
                )
        finally:
            _lib.Release(keys)
        return table
    if t == _lib.TYPE_UID:
        return UID(_lib.UIDGetValue(ref))
    raise UnrepresentableError(f"{path}: a value of unknown type {t}", 5, path)


def string_list(ref: int) -> List[str]:
    """The strings of an array of strings (borrowed)."""
    return [_text(_lib.ArrayGetValueAtIndex(ref, i)) for i in range(_lib.ArrayGetCount(ref))]
