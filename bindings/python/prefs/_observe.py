"""Observers: library callbacks into Python, and the asyncio stream."""

from __future__ import annotations

import asyncio
import atexit
import threading
import warnings
import weakref
from typing import Any, Callable, Dict, NamedTuple, Optional, Set

from . import _lib
from ._errors import Error, last_error


class Change(NamedTuple):
    """One change an observer hears of: the value a read of ``key`` along
    ``application_id``'s search list returns changed (set or removed, by
    this process or another). ``application_id`` is the canonical ID
    ("NSGlobalDomain" for the global domain). Read the new value from the
    :class:`~prefs.Preferences` (``None`` from ``get`` once removed)."""

    application_id: str
    key: str


# Observers by the number the library hands back as the callback's
# context. One C trampoline serves them all: it lives as long as the
# module, so the library can never call a freed ctypes thunk.
_lock = threading.Lock()
_callbacks: Dict[int, Callable[[Change], Any]] = {}
_live: Dict[int, "Observation"] = {}
_next = 1


def _deliver(application_id: Optional[bytes], key: Optional[bytes], context: Optional[int]) -> None:
    callback = _callbacks.get(context or 0)
    if callback is None:
        return
    callback(
        Change(
            (application_id or b"").decode("utf-8", "replace"),
            (key or b"").decode("utf-8", "replace"),
        )
    )


_trampoline = _lib.ObserverCallback(_deliver)


class Observation:
    """An observer that :meth:`Preferences.observe` added.

    It stays until :meth:`cancel` (or the end of the ``with`` block, or the
    interpreter's exit); dropping the object does not end it. Thread-safe.
    """

    __slots__ = ("_id", "_handle", "__weakref__")

    def __init__(self, application_id: bytes, key: Optional[str], callback: Callable[[Change], Any]):
        global _next
        if not callable(callback):
            raise TypeError("the callback must be callable")
        raw_key = None
        if key is not None:
            if not isinstance(key, str):
                raise TypeError(f"a key must be a str, not {type(key).__name__}")
            raw_key = key.encode("utf-8")
            if b"\0" in raw_key:
                raise ValueError(f"{key!r}: a key cannot hold a NUL character")
        with _lock:
            ident = _next
            _next += 1
            _callbacks[ident] = callback
        handle = _lib.AddObserver(application_id, raw_key, _trampoline, ident)
        error = last_error(key)
        if not handle:
            with _lock:
                _callbacks.pop(ident, None)
            raise error or Error("the library refused the observer", 100, key)
        if error is not None:
            # No inotify instance left: the observer hears libprefs
            # writers, not files edited by hand until a synchronize.
            warnings.warn(f"observer added with limits: {error.message}", RuntimeWarning, stacklevel=3)
        self._id = ident
        self._handle: Optional[int] = handle
        with _lock:
            _live[ident] = self

    @property
    def active(self) -> bool:
        """True until :meth:`cancel`."""
        return self._handle is not None

    def cancel(self) -> None:
        """Removes the observer. After this returns the callback is not
        running and is never called again (called from within the callback
        itself: not after it returns). Calling it again does nothing."""
        with _lock:
            handle, self._handle = self._handle, None
            _callbacks.pop(self._id, None)
            _live.pop(self._id, None)
        if handle is not None:
            # ctypes releases the GIL here, so a callback waiting for it on
            # the library's thread can finish.
            _lib.RemoveObserver(handle)

    def __enter__(self) -> "Observation":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.cancel()


@atexit.register
def _cancel_all() -> None:
    # Library threads must not call into an interpreter that is shutting
    # down: remove every observer while Python still runs.
    with _lock:
        live = list(_live.values())
    for observation in live:
        observation.cancel()


class ChangeStream:
    """An asynchronous iterator of :class:`Change` (``async for``), made by
    :meth:`Preferences.changes` in a running event loop.

    Changes are delivered to the loop that made the stream. Changes of a
    key not yet consumed are merged into one (the value is read when the
    change is consumed, so none is missed), so a fast writer cannot make
    the queue grow without bound. The observer is removed by
    :meth:`aclose`, at the end of ``async with``, or when the stream is
    garbage-collected.
    """

    def __init__(self, application_id: bytes, key: Optional[str]) -> None:
        self._loop = asyncio.get_running_loop()
        self._queue: "asyncio.Queue[Change]" = asyncio.Queue()
        self._pending: Set[Change] = set()
        self._closed = False
        # The observer holds the stream weakly, so that a stream nobody
        # reads any more is collected and its observer removed.
        this = weakref.ref(self)
        loop = self._loop

        def from_library(change: Change) -> None:
            # On the library's thread: hand over to the loop.
            stream = this()
            if stream is None:
                return
            try:
                loop.call_soon_threadsafe(stream._enqueue, change)
            except RuntimeError:
                # The loop is closed: nobody will read the stream again.
                stream._observation.cancel()

        self._observation = Observation(application_id, key, from_library)

    def _enqueue(self, change: Change) -> None:
        if self._closed or change in self._pending:
            return
        self._pending.add(change)
        self._queue.put_nowait(change)

    def __aiter__(self) -> "ChangeStream":
        return self

    async def __anext__(self) -> Change:
        if self._closed:
            raise StopAsyncIteration
        change = await self._queue.get()
        if self._closed:
            raise StopAsyncIteration
        self._pending.discard(change)
        return change

    async def aclose(self) -> None:
        """Removes the observer; iteration ends."""
        self.close()

    def close(self) -> None:
        """Removes the observer (synchronously); iteration ends."""
        if not self._closed:
            self._closed = True
            self._observation.cancel()
            # Wake a consumer waiting in __anext__.
            self._queue.put_nowait(Change("", ""))

    async def __aenter__(self) -> "ChangeStream":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        observation = getattr(self, "_observation", None)
        if observation is not None:
            observation.cancel()
