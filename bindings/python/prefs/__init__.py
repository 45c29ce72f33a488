"""Preferences shared with C and Swift programs, through libprefs.

``prefs`` reads and writes the same preferences as every program that uses
libprefs (and the ``prefs`` command): Apple-style property lists found
through the CFPreferences search list. It calls the installed
``libprefs.so.1`` through :mod:`ctypes`; nothing is compiled. Set
``PREFS_LIBRARY`` to the library's file (or its directory) to use a private
install.

>>> import prefs
>>> p = prefs.Preferences("com.example.editor")
>>> p["FontSize"] = 14
>>> p["FontSize"]
14
>>> p.synchronize()

Values: ``str``, ``int`` (-2**63 ... 2**64-1), ``float``, ``bool``,
``bytes``, ``datetime.datetime`` (read back UTC-aware; a naive one is taken
as UTC, as plistlib takes it), ``list`` (tuples are stored as lists),
``dict`` with ``str`` keys, and :class:`UID`. Anything else is refused with
a ``TypeError``, a value out of range with a ``ValueError`` (the
:class:`Error` subclasses for limits are ``ValueError`` too), each naming
the key, and nothing is stored.

Every function and method is thread-safe: the library is, and ctypes
releases the GIL during each call.
"""

from __future__ import annotations

import ctypes
import enum
import os
import plistlib
import sys
import warnings
from collections.abc import MutableMapping
from ctypes import byref, c_int, c_void_p
from typing import (
    IO,
    Any,
    Iterable,
    Callable,
    Dict,
    Iterator,
    List,
    Mapping,
    NamedTuple,
    Optional,
    Union,
)

from . import _lib
from ._errors import (
    CorruptFileError,
    CorruptFileWarning,
    Error,
    ForbiddenMarkupError,
    ForcedValueError,
    InvalidApplicationIDError,
    InvalidArgumentError,
    LimitError,
    MalformedError,
    StorageError,
    TooDeepError,
    UnrepresentableError,
    last_error,
    take,
)
from ._lib import LibraryNotFoundError
from ._observe import Change, ChangeStream, Observation
from ._values import MAX_NESTING, UID, string_list, to_python, to_ref

__all__ = [
    "ANY_APPLICATION",
    "ANY_HOST",
    "ANY_USER",
    "CURRENT_APPLICATION",
    "CURRENT_HOST",
    "CURRENT_USER",
    "FMT_BINARY",
    "FMT_XML",
    "GLOBAL_DOMAIN",
    "HAS_UID",
    "LIBRARY_PATH",
    "LIBRARY_VERSION",
    "MAX_NESTING",
    "Change",
    "ChangeStream",
    "CorruptFileError",
    "CorruptFileWarning",
    "Domain",
    "Error",
    "ForbiddenMarkupError",
    "ForcedValueError",
    "InvalidApplicationIDError",
    "InvalidArgumentError",
    "Layer",
    "LibraryNotFoundError",
    "LimitError",
    "MalformedError",
    "Observation",
    "Preferences",
    "Source",
    "StorageError",
    "TooDeepError",
    "UID",
    "UnrepresentableError",
    "Value",
    "applications",
    "dump",
    "dumps",
    "load",
    "loads",
    "set_arguments",
]

__version__ = "1.3.0"

#: Where the library was loaded from (what was passed to the dynamic
#: linker: a path, or the SONAME for its own search).
LIBRARY_PATH: str = _lib.path
#: The running library's version, major * 10000 + minor * 100 + patch.
LIBRARY_VERSION: int = _lib.version_number
#: True when the running library has UID values (PrefsUIDCreate).
HAS_UID: bool = _lib.TYPE_UID is not None

#: The global domain's application ID (searched by every application).
GLOBAL_DOMAIN = "NSGlobalDomain"
#: The library's names for "every application", "this process", "every
#: user", "this user", "every host", "this host" (kPrefs* in Prefs.h).
ANY_APPLICATION = "kPrefsAnyApplication"
CURRENT_APPLICATION = "kPrefsCurrentApplication"
ANY_USER = "kPrefsAnyUser"
CURRENT_USER = "kPrefsCurrentUser"
ANY_HOST = "kPrefsAnyHost"
CURRENT_HOST = "kPrefsCurrentHost"

#: The formats of :func:`dumps`: plistlib's own constants.
FMT_XML = plistlib.FMT_XML
FMT_BINARY = plistlib.FMT_BINARY

#: A value a preference can hold.
Value = Any


class Layer(enum.IntEnum):
    """The layer of the search list a value came from (PrefsSource)."""

    NONE = 0
    MANAGED = 1
    ARGUMENTS = 2
    APP_CURRENT_HOST = 3
    APP = 4
    SUITE = 5
    GLOBAL_CURRENT_HOST = 6
    GLOBAL = 7
    ANY_USER = 8
    LANGUAGE = 9
    REGISTRATION = 10
    SCHEMA = 11


class Source(NamedTuple):
    """Where a value of the search list came from: its ``layer`` (a
    :class:`Layer`, or a plain ``int`` for a layer newer than this
    package) and the layer's ``domain`` name (the application, suite or
    language ID, "NSGlobalDomain"), or None for a layer without one."""

    layer: Union[Layer, int]
    domain: Optional[str]


def _name(text: str, what: str) -> bytes:
    if not isinstance(text, str):
        raise TypeError(f"{what} must be a str, not {type(text).__name__}")
    try:
        raw = text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ValueError(f"{what} {text!r} is not valid Unicode text ({error.reason})") from None
    if b"\0" in raw:
        raise ValueError(f"{what} {text!r} holds a NUL character")
    return raw


# Keys as the library takes them (UTF-8 bytes), for the keys a program
# reads over and over; bounded, and only ever holding valid keys.
_KEYS: Dict[str, bytes] = {}


def _key(key: str) -> bytes:
    raw = _KEYS.get(key) if type(key) is str else None
    if raw is not None:
        return raw
    raw = _name(key, "a key")
    if len(_KEYS) >= 4096:
        _KEYS.clear()
    _KEYS[key] = raw
    return raw


def _check_read(key: Optional[str], ref: Optional[int]) -> None:
    """After a read: a file of the search list that could not be used is
    a warning (the value came from the other layers); any other error is
    raised."""
    error = last_error(key)
    if error is None:
        return
    if isinstance(error, (CorruptFileError, StorageError)):
        warnings.warn(CorruptFileWarning(error), stacklevel=3)
        return
    if ref:
        _lib.Release(ref)
    raise error


def _check_write(key: Optional[str]) -> None:
    error = last_error(key)
    if error is not None:
        if error.key is not None and error.key not in error.message:
            error.args = (f"{error.key}: {error.message}",)
        raise error


def _take_dict(ref: Optional[int], what: str) -> Dict[str, Any]:
    if not ref:
        raise Error(f"{what} failed", 100)
    try:
        value: Dict[str, Any] = to_python(ref, what)
        return value
    finally:
        _lib.Release(ref)


def _take_keys(ref: Optional[int], what: str) -> List[str]:
    if not ref:
        raise Error(f"{what} failed", 100)
    try:
        return string_list(ref)
    finally:
        _lib.Release(ref)


class Preferences(MutableMapping[str, Any]):
    """An application's preferences along its search list: a mutable
    mapping.

    Reading ``p[key]`` returns the first value the search list holds
    (managed values, the command line, the app's domains, its suites, the
    global domain, every user's, languages, registered defaults, the
    installed schema); iteration, ``len`` and ``in`` see every visible key.
    Writing ``p[key] = value`` and ``del p[key]`` change the app's own
    domain (current user, any host): this process sees the change at once;
    it reaches the disk at :meth:`synchronize`, within a second by itself,
    and at exit. ``del p[key]`` raises ``KeyError`` when no layer holds the
    key; afterwards another layer may still answer for it.

    A write to a key a managed value decides raises
    :class:`ForcedValueError`; a value that cannot be stored raises
    ``TypeError`` or ``ValueError`` naming the key; nothing is stored then.

    ``application_id`` is a reverse-DNS ID, :data:`GLOBAL_DOMAIN` or
    :data:`CURRENT_APPLICATION`. An ID the library refuses raises
    :class:`InvalidApplicationIDError` at first use.
    """

    __slots__ = ("_app", "application_id")

    def __init__(self, application_id: str = CURRENT_APPLICATION) -> None:
        self._app = _name(application_id, "the application ID")
        #: The application ID given.
        self.application_id = application_id

    @classmethod
    def global_domain(cls) -> "Preferences":
        """The global domain's preferences (``NSGlobalDomain``), which
        every application's search list includes."""
        return cls(GLOBAL_DOMAIN)

    def __repr__(self) -> str:
        return f"prefs.Preferences({self.application_id!r})"

    # -- reading ---------------------------------------------------------

    def __getitem__(self, key: str) -> Value:
        raw = _key(key)
        ref = _lib.CopyAppValue(raw, self._app)
        _check_read(key, ref)
        if not ref:
            raise KeyError(key)
        try:
            return to_python(ref, key)
        finally:
            _lib.Release(ref)

    def get(self, key: str, default: Any = None) -> Value:
        """``p[key]``, or ``default`` when no layer holds the key."""
        raw = _key(key)
        ref = _lib.CopyAppValue(raw, self._app)
        _check_read(key, ref)
        if not ref:
            return default
        try:
            return to_python(ref, key)
        finally:
            _lib.Release(ref)

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        ref = _lib.CopyAppValue(_key(key), self._app)
        _check_read(key, ref)
        if not ref:
            return False
        _lib.Release(ref)
        return True

    def copy(self) -> Dict[str, Value]:
        """Every visible key with the value a read returns, as a new
        ``dict`` taken at one instant."""
        ref = _lib.CopyAppDictionary(self._app)
        _check_read(None, ref)
        return _take_dict(ref, self.application_id)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys())

    def __len__(self) -> int:
        return len(self._keys())

    def _keys(self) -> List[str]:
        ref = _lib.CopyAppDictionary(self._app)
        _check_read(None, ref)
        if not ref:
            raise Error("the library returned no dictionary", 100)
        try:
            keys = _lib.DictionaryCopyKeys(ref)
            try:
                return string_list(keys)
            finally:
                _lib.Release(keys)
        finally:
            _lib.Release(ref)

    def get_bool(self, key: str, default: bool = False) -> bool:
        """The value as a boolean, as the C API's PrefsGetAppBooleanValue
        coerces it (booleans; integers: non-zero; the strings YES, NO, true,
        false in any case, or a decimal integer); ``default`` otherwise."""
        valid = ctypes.c_bool()
        result = _lib.GetAppBooleanValue(_key(key), self._app, byref(valid))
        _check_read(key, None)
        return bool(result) if valid.value else default

    def get_int(self, key: str, default: int = 0) -> int:
        """The value as an integer, as PrefsGetAppIntegerValue coerces it
        (integers in the int64 range; booleans; finite reals truncated;
        decimal strings); ``default`` otherwise."""
        valid = ctypes.c_bool()
        result = _lib.GetAppIntegerValue(_key(key), self._app, byref(valid))
        _check_read(key, None)
        return int(result) if valid.value else default

    def is_forced(self, key: str) -> bool:
        """True when a managed (forced) value decides ``key``: writes to it
        are refused."""
        result = _lib.AppValueIsForced(_key(key), self._app)
        _check_read(key, None)
        return bool(result)

    def source(self, key: str) -> Optional[Source]:
        """The layer that answers a read of ``key``, or None when no layer
        holds it."""
        layer = c_int(0)
        domain = c_void_p()
        ref = _lib.CopyAppValueAndSource(_key(key), self._app, byref(layer), byref(domain))
        _check_read(key, ref)
        try:
            name = ctypes.string_at(domain.value).decode("utf-8") if domain.value else None
        finally:
            _lib.Free(domain.value)
        if not ref:
            return None
        _lib.Release(ref)
        try:
            found: Union[Layer, int] = Layer(layer.value)
        except ValueError:
            found = layer.value
        return Source(found, name)

    # -- writing ---------------------------------------------------------

    def __setitem__(self, key: str, value: Value) -> None:
        raw = _key(key)
        ref = to_ref(value, key)
        _lib.SetAppValue(raw, ref, self._app)
        error = last_error(key)
        _lib.Release(ref)
        if error is not None:
            raise error

    def __delitem__(self, key: str) -> None:
        if key not in self:
            raise KeyError(key)
        _lib.SetAppValue(_key(key), None, self._app)
        _check_write(key)

    def synchronize(self) -> None:
        """Writes this process's pending changes of the application's
        domains and picks up other processes' changes. Raises
        :class:`StorageError` (or another :class:`Error`) when a write
        failed: the old file stays intact and the changes stay pending. A
        corrupt file moved aside on the way is a :class:`CorruptFileWarning`
        (the changes are on disk)."""
        ok = _lib.AppSynchronize(self._app)
        error = last_error()
        if not ok:
            raise error or Error("synchronize failed", 100)
        if error is not None:
            warnings.warn(CorruptFileWarning(error), stacklevel=2)

    def register(self, defaults: Mapping[str, Value]) -> None:
        """Merges ``defaults`` into the application's registration domain
        (memory only, searched last)."""
        ref = to_ref(dict(defaults), "defaults")
        _lib.RegisterDefaults(ref, self._app)
        error = last_error()
        _lib.Release(ref)
        if error is not None:
            raise error

    def register_file(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Registers as defaults the dictionary of a property-list file, or
        a settings schema's defaults (``PreferenceSpecifiers``). Nothing is
        registered when a file cannot be read or parsed (the error says
        which)."""
        raw = _name(os.fspath(path), "the path")
        out = c_void_p()
        if not _lib.RegisterDefaultsFromFile(raw, self._app, byref(out)):
            raise take(out)

    # -- suites ----------------------------------------------------------

    def add_suite(self, suite_id: str) -> None:
        """Adds the suite ``suite_id`` to the search list (after the app's
        own domains, newest suite first)."""
        _lib.AddSuitePreferencesToApp(self._app, _name(suite_id, "the suite ID"))
        _check_write(None)

    def remove_suite(self, suite_id: str) -> None:
        """Removes the suite ``suite_id`` from the search list."""
        _lib.RemoveSuitePreferencesFromApp(self._app, _name(suite_id, "the suite ID"))
        _check_write(None)

    # -- one stored domain -----------------------------------------------

    def domain(self, user: str = CURRENT_USER, host: str = ANY_HOST) -> "Domain":
        """The application's stored domain for ``user`` (:data:`CURRENT_USER`
        or :data:`ANY_USER`) and ``host`` (:data:`ANY_HOST` or
        :data:`CURRENT_HOST`), without the search list."""
        return Domain(self.application_id, user, host)

    @property
    def current_host(self) -> "Domain":
        """The current user's domain for this host only (``ByHost``)."""
        return Domain(self.application_id, CURRENT_USER, CURRENT_HOST)

    @property
    def any_user(self) -> "Domain":
        """The domain of every user of this machine (any host)."""
        return Domain(self.application_id, ANY_USER, ANY_HOST)

    # -- observing -------------------------------------------------------

    def observe(self, key: Optional[str], callback: Callable[[Change], Any]) -> Observation:
        """Calls ``callback(change)`` after the value a read of ``key`` (any
        key when None) returns changes: by this process, or by another
        (once its write reaches the disk; files edited by hand are noticed
        too). A change that leaves the value as it was is not reported.

        The callback runs on a thread of the library's, one call at a time,
        and may use this package. Keep it short; hand work to your own
        thread or event loop (:meth:`changes` does that for asyncio). The
        observer stays until :meth:`Observation.cancel`.
        """
        return Observation(self._app, key, callback)

    def changes(self, key: Optional[str] = None) -> ChangeStream:
        """An asynchronous stream of the changes :meth:`observe` would
        report, delivered to the running event loop::

            async with p.changes("Theme") as stream:
                async for change in stream:
                    print(change.key, p.get(change.key))
        """
        return ChangeStream(self._app, key)


class Domain(MutableMapping[str, Any]):
    """One stored domain, without the search list: an application's (or
    the global domain's) values for one user (:data:`CURRENT_USER`,
    :data:`ANY_USER`) and host (:data:`ANY_HOST`, :data:`CURRENT_HOST`).

    The mapping reads and writes that domain only; :meth:`update` applies
    all its changes as one (another process sees all or none of them).
    """

    __slots__ = ("_app", "_user", "_host", "application_id", "user", "host")

    def __init__(self, application_id: str, user: str = CURRENT_USER, host: str = ANY_HOST) -> None:
        self._app = _name(application_id, "the application ID")
        self._user = _name(user, "the user name")
        self._host = _name(host, "the host name")
        self.application_id = application_id
        self.user = user
        self.host = host

    def __repr__(self) -> str:
        return f"prefs.Domain({self.application_id!r}, {self.user!r}, {self.host!r})"

    def __getitem__(self, key: str) -> Value:
        ref = _lib.CopyValue(_key(key), self._app, self._user, self._host)
        _check_read(key, ref)
        if not ref:
            raise KeyError(key)
        try:
            return to_python(ref, key)
        finally:
            _lib.Release(ref)

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, str):
            return False
        ref = _lib.CopyValue(_key(key), self._app, self._user, self._host)
        _check_read(key, ref)
        if not ref:
            return False
        _lib.Release(ref)
        return True

    def __setitem__(self, key: str, value: Value) -> None:
        raw = _key(key)
        ref = to_ref(value, key)
        _lib.SetValue(raw, ref, self._app, self._user, self._host)
        error = last_error(key)
        _lib.Release(ref)
        if error is not None:
            raise error

    def __delitem__(self, key: str) -> None:
        if key not in self:
            raise KeyError(key)
        _lib.SetValue(_key(key), None, self._app, self._user, self._host)
        _check_write(key)

    def _keys(self) -> List[str]:
        ref = _lib.CopyKeyList(self._app, self._user, self._host)
        _check_read(None, ref)
        return _take_keys(ref, self.application_id)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys())

    def __len__(self) -> int:
        return len(self._keys())

    def copy(self) -> Dict[str, Value]:
        """The whole domain as a new ``dict``, taken at one instant."""
        ref = _lib.CopyMultiple(None, self._app, self._user, self._host)
        _check_read(None, ref)
        return _take_dict(ref, self.application_id)

    def update(self, other: Any = (), /, **kwargs: Value) -> None:
        """Sets every key of ``other`` and ``kwargs`` as one change."""
        values = dict(other, **kwargs)
        self.apply(values, ())

    def apply(self, set: Mapping[str, Value], remove: "Iterable[str]" = ()) -> None:
        """Sets every key of ``set`` and removes every key in ``remove``, as
        one change: refused whole, changing nothing, when any part is."""
        for key in set:
            if not isinstance(key, str):
                raise TypeError(f"a key must be a str, not {type(key).__name__}")
        setting = to_ref(dict(set), "values")
        removing = to_ref(list(remove), "keys to remove")
        try:
            _lib.SetMultiple(setting, removing, self._app, self._user, self._host)
            _check_write(None)
        finally:
            _lib.Release(setting)
            _lib.Release(removing)

    def synchronize(self) -> None:
        """As :meth:`Preferences.synchronize`, for this domain."""
        ok = _lib.Synchronize(self._app, self._user, self._host)
        error = last_error()
        if not ok:
            raise error or Error("synchronize failed", 100)
        if error is not None:
            warnings.warn(CorruptFileWarning(error), stacklevel=2)

    def remove(self) -> None:
        """Removes the domain: its file goes away, with this process's
        pending changes of it; observers hear of every key whose read
        result changes. Nothing happens when it does not exist."""
        if not _lib.RemoveDomain(self._app, self._user, self._host):
            _check_write(None)
            raise Error("the domain could not be removed", 100)


def applications(user: str = CURRENT_USER, host: str = ANY_HOST) -> List[str]:
    """The applications with a stored domain for ``user`` and ``host``,
    sorted (the global domain is not listed)."""
    ref = _lib.CopyApplicationList(_name(user, "the user name"), _name(host, "the host name"))
    _check_read(None, ref)
    return _take_keys(ref, "application list")


def set_arguments(argv: "List[str]") -> None:
    """Replaces the argument domain with the ``-key value`` pairs of
    ``argv`` (``argv[0]``, the program, is skipped; a value that parses as
    a property list is stored parsed). ``import prefs`` does this with
    ``sys.argv``, so that the interpreter's own options (``python3 -m
    tool``, ``-c``) are not taken for preferences."""
    raw = [_name(arg, "an argument") for arg in argv]
    array = (ctypes.c_char_p * len(raw))(*raw)
    _lib.SetArguments(len(raw), array)
    _check_write(None)


def _arguments_from_sys() -> None:
    argv = getattr(sys, "argv", None)
    if not isinstance(argv, list):
        argv = [""]
    try:
        set_arguments([str(arg) for arg in argv])
    except (ValueError, TypeError, Error):
        # An argument that is not UTF-8: no argument domain rather than
        # the interpreter's options.
        set_arguments(argv[:1] if argv and _is_text(argv[0]) else [""])


def _is_text(arg: object) -> bool:
    try:
        return isinstance(arg, str) and b"\0" not in arg.encode("utf-8")
    except UnicodeEncodeError:
        return False


_arguments_from_sys()


# -- property-list data ----------------------------------------------------


def loads(data: Union[bytes, bytearray, memoryview]) -> Value:
    """The value of a property list: XML (any encoding the library reads),
    binary (``bplist00``) or old-style text. Raises :class:`MalformedError`
    (a ``ValueError``) naming the problem and its line,
    :class:`ForbiddenMarkupError` for DTD subsets and entities,
    :class:`TooDeepError` past :data:`MAX_NESTING`. Dates are UTC-aware
    datetimes; a binary UID is a :class:`UID` when the library has UIDs,
    else the ``{"CF$UID": n}`` dictionary the library reads it as."""
    if isinstance(data, str):
        raise TypeError("loads takes bytes, not str (encode the text first)")
    raw = bytes(data)
    out = c_void_p()
    ref = _lib.PropertyListCreateWithData(raw, len(raw), byref(out))
    if not ref:
        raise take(out)
    try:
        return to_python(ref, "value")
    finally:
        _lib.Release(ref)


def load(fp: IO[bytes]) -> Value:
    """:func:`loads` of everything ``fp`` (a binary file) holds."""
    return loads(fp.read())


def dumps(value: Value, *, fmt: plistlib.PlistFormat = FMT_XML) -> bytes:
    """``value`` as a property list: :data:`FMT_XML` (as Apple's tools
    write it, keys sorted) or :data:`FMT_BINARY`. Refuses what the format
    cannot carry (XML: control characters in text, dates outside the years
    1-9999) with :class:`UnrepresentableError`, naming the value's path."""
    if fmt == FMT_XML:
        code = _lib.FORMAT_XML
    elif fmt == FMT_BINARY:
        code = _lib.FORMAT_BINARY
    else:
        raise ValueError(f"unsupported format: {fmt!r}")
    ref = to_ref(value, "value")
    out = c_void_p()
    try:
        data = _lib.PropertyListCreateData(ref, code, byref(out))
    finally:
        _lib.Release(ref)
    if not data:
        raise take(out)
    try:
        return ctypes.string_at(_lib.DataGetBytePtr(data), _lib.DataGetLength(data))
    finally:
        _lib.Release(data)


def dump(value: Value, fp: IO[bytes], *, fmt: plistlib.PlistFormat = FMT_XML) -> None:
    """Writes :func:`dumps` of ``value`` to ``fp`` (a binary file)."""
    fp.write(dumps(value, fmt=fmt))
