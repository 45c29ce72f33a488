"""Loading libprefs.so.1 and declaring the C functions this package calls.

Internal: the public names live in :mod:`prefs`. Every declaration mirrors
``include/prefs/Prefs.h``; a function the running library does not export
(an older library, or one without UIDs) is ``None`` here, and the callers
say so in their error.
"""

from __future__ import annotations

import ctypes
import os
import sys
from ctypes import (
    CFUNCTYPE,
    POINTER,
    c_bool,
    c_char_p,
    c_double,
    c_int,
    c_int64,
    c_size_t,
    c_uint32,
    c_uint64,
    c_void_p,
)
from typing import Any, List, Optional

SONAME = "libprefs.so.1"

#: The oldest library this package works with: 1.2 added
#: PrefsCopyAppValueAndSource, which ``Preferences.source`` calls.
MIN_VERSION = 10200


class LibraryNotFoundError(ImportError):
    """libprefs.so.1 could not be loaded.

    Raised by ``import prefs``. The message says where the package looked
    and how to point it at a private install (``PREFS_LIBRARY``).
    """


def _candidates() -> List[str]:
    """Where to look, in order: PREFS_LIBRARY, then the dynamic linker's
    own search (ld.so.cache, LD_LIBRARY_PATH), then the default prefix of
    ``make install`` (/usr/local/lib and its multiarch directory), which
    some systems leave out of the linker's cache."""
    named = os.environ.get("PREFS_LIBRARY")
    if named:
        if os.path.isdir(named):
            named = os.path.join(named, SONAME)
        return [named]
    found = [SONAME]
    multiarch = getattr(sys.implementation, "_multiarch", None)
    if multiarch:
        found.append(os.path.join("/usr/local/lib", multiarch, SONAME))
    found.append(os.path.join("/usr/local/lib", SONAME))
    return found


def _load() -> "tuple[ctypes.CDLL, str]":
    errors = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path), path
        except OSError as error:
            errors.append(f"  {path}: {error}")
    named = os.environ.get("PREFS_LIBRARY")
    hint = (
        "PREFS_LIBRARY is set but names no loadable library; point it at the "
        "file (PREFS_LIBRARY=/some/prefix/lib/libprefs.so.1) or its directory"
        if named
        else "install libprefs (the libprefs1 package, or `make install`), or for a "
        "private prefix set PREFS_LIBRARY=/some/prefix/lib/libprefs.so.1"
    )
    raise LibraryNotFoundError(
        f"cannot load {SONAME}: {hint}. Tried:\n" + "\n".join(errors), name=SONAME
    )


lib, path = _load()

PrefsRef = c_void_p
ObserverCallback = CFUNCTYPE(None, c_char_p, c_char_p, c_void_p)


def _fn(name: str, restype: Any, *argtypes: Any, required: bool = True) -> Any:
    try:
        fn = getattr(lib, name)
    except AttributeError:
        if required:
            raise LibraryNotFoundError(
                f"{path} does not export {name}: libprefs 1.2 or later is needed",
                name=SONAME,
            ) from None
        return None
    fn.restype = restype
    fn.argtypes = list(argtypes)
    return fn


GetVersionNumber = _fn("PrefsGetVersionNumber", c_int)
version_number: int = GetVersionNumber()
if version_number < MIN_VERSION:
    raise LibraryNotFoundError(
        f"{path} is libprefs {version_number // 10000}.{version_number // 100 % 100}: "
        "this package needs 1.2 or later",
        name=SONAME,
    )

Retain = _fn("PrefsRetain", PrefsRef, PrefsRef)
Release = _fn("PrefsRelease", None, PrefsRef)
GetType = _fn("PrefsGetType", c_int, PrefsRef)
Equal = _fn("PrefsEqual", c_bool, PrefsRef, PrefsRef)
CopyDescription = _fn("PrefsCopyDescription", c_void_p, PrefsRef)
Free = _fn("PrefsFree", None, c_void_p)

StringCreateWithBytes = _fn("PrefsStringCreateWithBytes", PrefsRef, c_char_p, c_size_t)
StringGetCString = _fn("PrefsStringGetCString", c_void_p, PrefsRef)
StringGetLength = _fn("PrefsStringGetLength", c_size_t, PrefsRef)

NumberCreateInt64 = _fn("PrefsNumberCreateInt64", PrefsRef, c_int64)
NumberCreateUInt64 = _fn("PrefsNumberCreateUInt64", PrefsRef, c_uint64)
NumberCreateDouble = _fn("PrefsNumberCreateDouble", PrefsRef, c_double)
NumberGetInt64 = _fn("PrefsNumberGetInt64", c_bool, PrefsRef, POINTER(c_int64))
NumberGetUInt64 = _fn("PrefsNumberGetUInt64", c_bool, PrefsRef, POINTER(c_uint64))
NumberGetDouble = _fn("PrefsNumberGetDouble", c_bool, PrefsRef, POINTER(c_double))

BooleanCreate = _fn("PrefsBooleanCreate", PrefsRef, c_bool)
BooleanGetValue = _fn("PrefsBooleanGetValue", c_bool, PrefsRef)

DateCreate = _fn("PrefsDateCreate", PrefsRef, c_double)
DateGetUnixTime = _fn("PrefsDateGetUnixTime", c_double, PrefsRef)

DataCreate = _fn("PrefsDataCreate", PrefsRef, c_char_p, c_size_t)
DataGetBytePtr = _fn("PrefsDataGetBytePtr", c_void_p, PrefsRef)
DataGetLength = _fn("PrefsDataGetLength", c_size_t, PrefsRef)

ArrayCreate = _fn("PrefsArrayCreate", PrefsRef, POINTER(c_void_p), c_size_t)
ArrayGetCount = _fn("PrefsArrayGetCount", c_size_t, PrefsRef)
ArrayGetValueAtIndex = _fn("PrefsArrayGetValueAtIndex", PrefsRef, PrefsRef, c_size_t)

DictionaryCreate = _fn(
    "PrefsDictionaryCreate", PrefsRef, POINTER(c_char_p), POINTER(c_void_p), c_size_t
)
DictionaryGetCount = _fn("PrefsDictionaryGetCount", c_size_t, PrefsRef)
DictionaryGetValue = _fn("PrefsDictionaryGetValue", PrefsRef, PrefsRef, c_char_p)
DictionaryCopyKeys = _fn("PrefsDictionaryCopyKeys", PrefsRef, PrefsRef)

# UIDs (CF$UID, NSKeyedArchiver's object references, 0 ... 2**32-1) are
# values of their own from C API 1.3 on: PrefsUIDCreate(uint32_t) and
# uint32_t PrefsUIDGetValue(PrefsUIDRef). With an older library both are
# None and UIDs are refused. The type number is learnt from the library
# (below), not assumed.
UIDCreate = _fn("PrefsUIDCreate", PrefsRef, c_uint32, required=False)
UIDGetValue = _fn("PrefsUIDGetValue", c_uint32, PrefsRef, required=False)

PropertyListCreateWithData = _fn(
    "PrefsPropertyListCreateWithData", PrefsRef, c_char_p, c_size_t, POINTER(c_void_p)
)
PropertyListCreateData = _fn(
    "PrefsPropertyListCreateData", PrefsRef, PrefsRef, c_int, POINTER(c_void_p)
)

CopyAppValue = _fn("PrefsCopyAppValue", PrefsRef, c_char_p, c_char_p)
CopyAppValueAndSource = _fn(
    "PrefsCopyAppValueAndSource",
    PrefsRef,
    c_char_p,
    c_char_p,
    POINTER(c_int),
    POINTER(c_void_p),
)
SetAppValue = _fn("PrefsSetAppValue", None, c_char_p, PrefsRef, c_char_p)
AppSynchronize = _fn("PrefsAppSynchronize", c_bool, c_char_p)
AddSuitePreferencesToApp = _fn("PrefsAddSuitePreferencesToApp", None, c_char_p, c_char_p)
RemoveSuitePreferencesFromApp = _fn(
    "PrefsRemoveSuitePreferencesFromApp", None, c_char_p, c_char_p
)
GetAppBooleanValue = _fn("PrefsGetAppBooleanValue", c_bool, c_char_p, c_char_p, POINTER(c_bool))
GetAppIntegerValue = _fn("PrefsGetAppIntegerValue", c_int64, c_char_p, c_char_p, POINTER(c_bool))
AppValueIsForced = _fn("PrefsAppValueIsForced", c_bool, c_char_p, c_char_p)
CopyValue = _fn("PrefsCopyValue", PrefsRef, c_char_p, c_char_p, c_char_p, c_char_p)
SetValue = _fn("PrefsSetValue", None, c_char_p, PrefsRef, c_char_p, c_char_p, c_char_p)
CopyMultiple = _fn("PrefsCopyMultiple", PrefsRef, PrefsRef, c_char_p, c_char_p, c_char_p)
SetMultiple = _fn(
    "PrefsSetMultiple", None, PrefsRef, PrefsRef, c_char_p, c_char_p, c_char_p
)
Synchronize = _fn("PrefsSynchronize", c_bool, c_char_p, c_char_p, c_char_p)
CopyKeyList = _fn("PrefsCopyKeyList", PrefsRef, c_char_p, c_char_p, c_char_p)
CopyApplicationList = _fn("PrefsCopyApplicationList", PrefsRef, c_char_p, c_char_p)
RemoveDomain = _fn("PrefsRemoveDomain", c_bool, c_char_p, c_char_p, c_char_p)
CopyAppDictionary = _fn("PrefsCopyAppDictionary", PrefsRef, c_char_p)
RegisterDefaults = _fn("PrefsRegisterDefaults", None, PrefsRef, c_char_p)
RegisterDefaultsFromFile = _fn(
    "PrefsRegisterDefaultsFromFile", c_bool, c_char_p, c_char_p, POINTER(c_void_p)
)

SetArguments = _fn("PrefsSetArguments", None, c_int, POINTER(c_char_p))

AddObserver = _fn("PrefsAddObserver", c_void_p, c_char_p, c_char_p, ObserverCallback, c_void_p)
RemoveObserver = _fn("PrefsRemoveObserver", None, c_void_p)

CopyLastError = _fn("PrefsCopyLastError", PrefsRef)
ErrorGetCode = _fn("PrefsErrorGetCode", c_int, PrefsRef)
ErrorCopyDescription = _fn("PrefsErrorCopyDescription", c_void_p, PrefsRef)

# The numbers of PrefsType (fixed by the header).
TYPE_STRING = 1
TYPE_INTEGER = 2
TYPE_REAL = 3
TYPE_BOOLEAN = 4
TYPE_DATE = 5
TYPE_DATA = 6
TYPE_ARRAY = 7
TYPE_DICTIONARY = 8
TYPE_ERROR = 9


def _uid_type() -> Optional[int]:
    if UIDCreate is None or UIDGetValue is None:
        return None
    ref = UIDCreate(1)
    if not ref:
        return None
    try:
        return int(GetType(ref))
    finally:
        Release(ref)


#: The PrefsType number of a UID, or None when the library has no UIDs.
TYPE_UID: Optional[int] = _uid_type()

FORMAT_XML = 100
FORMAT_BINARY = 200
