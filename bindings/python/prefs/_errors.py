"""The library's errors as Python exceptions."""

from __future__ import annotations

import ctypes
from typing import Dict, Optional, Type

from . import _lib


class Error(Exception):
    """An error reported by libprefs.

    ``code`` is the library's stable error code (one of :class:`ErrorCode`'s
    numbers, or a newer one), ``message`` its description (for people, not
    for comparison: the wording may change), ``key`` the preference key or
    value path the error is about when there is one.
    """

    code: int
    message: str
    key: Optional[str]

    def __init__(self, message: str, code: int = 100, key: Optional[str] = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.key = key


class InvalidArgumentError(Error, ValueError):
    """An argument the library refused (kPrefsErrorInvalidArgument)."""


class MalformedError(Error, ValueError):
    """Input that is not a property list (kPrefsErrorMalformed)."""


class ForbiddenMarkupError(MalformedError):
    """XML a property list must not use: DTD subsets, entities
    (kPrefsErrorForbiddenMarkup)."""


class LimitError(Error, ValueError):
    """A value or document past one of the library's limits."""


class TooDeepError(LimitError):
    """Nesting deeper than :data:`MAX_NESTING` (kPrefsErrorTooDeep)."""


class UnrepresentableError(Error, ValueError):
    """A value the property-list format cannot carry (a control character
    in a string, a date outside the years 1-9999) or one too large for any
    document the library writes (kPrefsErrorUnrepresentable)."""


class InvalidApplicationIDError(Error, ValueError):
    """An application ID the library refuses: empty, too long, holding
    '/', or '.' or '..' (kPrefsErrorInvalidApplicationID)."""


class StorageError(Error, OSError):
    """A file-system operation failed; the message names the operation,
    the path and the system's reason (kPrefsErrorIO)."""


class CorruptFileError(Error):
    """A stored domain file does not parse; it was kept, not emptied
    (kPrefsErrorCorruptFile)."""


class ForcedValueError(Error):
    """A managed (forced) value decides this key; the write was refused
    (kPrefsErrorForcedValue)."""


class CorruptFileWarning(UserWarning):
    """A read met a domain file that does not parse (or cannot be read):
    the value came from the other layers. ``error`` is the library's
    :class:`CorruptFileError` (or :class:`StorageError`)."""

    def __init__(self, error: Error) -> None:
        super().__init__(str(error))
        self.error = error


_BY_CODE: Dict[int, Type[Error]] = {
    1: InvalidArgumentError,
    2: MalformedError,
    3: ForbiddenMarkupError,
    4: TooDeepError,
    5: UnrepresentableError,
    6: InvalidApplicationIDError,
    7: StorageError,
    8: CorruptFileError,
    9: ForcedValueError,
}


def error_class(code: int) -> Type[Error]:
    """The exception class of a library error code (:class:`Error` for a
    code this package does not know)."""
    return _BY_CODE.get(code, Error)


def from_ref(ref: int, key: Optional[str] = None) -> Error:
    """An exception for the error object ``ref`` (borrowed)."""
    code = int(_lib.ErrorGetCode(ref))
    text = _lib.ErrorCopyDescription(ref)
    try:
        message = ctypes.string_at(text).decode("utf-8", "replace") if text else "unknown error"
    finally:
        _lib.Free(text)
    return error_class(code)(message, code, key)


def last_error(key: Optional[str] = None) -> Optional[Error]:
    """The error of the latest library call on this thread, or None."""
    ref = _lib.CopyLastError()
    if not ref:
        return None
    try:
        return from_ref(ref, key)
    finally:
        _lib.Release(ref)


def take(out: ctypes.c_void_p, key: Optional[str] = None) -> Error:
    """The +1 error an ``outError`` parameter received, released."""
    if not out.value:
        return Error("the library failed without saying why", 100, key)
    try:
        return from_ref(out.value, key)
    finally:
        _lib.Release(out.value)
