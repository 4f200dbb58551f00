"""What Rules and State share: one C object, owned once, used under a lock, freed only when
no call is using it. And what every class of the package with a close() shares: `with`."""

from __future__ import annotations

import threading
import weakref
from ctypes import c_void_p
from typing import Callable, Optional, Tuple, TypeVar

_Closing = TypeVar("_Closing", bound="Closing")


def closed_error(obj: object) -> ValueError:
    """The error for any use of `obj` after its close(), naming its class."""
    return ValueError("operation on a closed %s" % type(obj).__name__)


class Closing:
    """`with obj as o:` for every class of the package that has a close(): `o` is obj itself,
    and obj.close() runs when the block ends, however it ends (an exception goes on).
    Entering an object already closed raises closed_error(obj), as any other use of it does.

    A subclass defines close(), which releases what the object holds and does nothing the
    second time, and _check_open(), which raises closed_error(self) once close() has run.
    """

    __slots__ = ()

    def close(self) -> None:
        raise NotImplementedError

    def _check_open(self) -> None:
        raise NotImplementedError

    def __enter__(self: _Closing) -> _Closing:
        self._check_open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Use:
    """`with handle._use as ptr:` the object's lock and its pointer, for one call into the
    library. A class rather than a generator: entering and leaving are one call each."""

    __slots__ = ("_owner",)

    def __init__(self, owner: Handle) -> None:
        self._owner = owner

    def __enter__(self) -> c_void_p:
        h = self._owner
        h._lock.acquire()
        try:
            ptr = h._ptr
            if ptr is None:
                raise closed_error(h)
            h._calls += 1
        except BaseException:
            h._lock.release()
            raise
        return ptr

    def __exit__(self, *exc: object) -> None:
        h = self._owner
        try:
            h._calls -= 1
            if h._calls == 0 and h._ptr is None:
                h._free()
        finally:
            h._lock.release()


class Handle(Closing):
    """The owner of one C object (a tg_rules, a tg_state, an open tg_egtb).

    Every call into the library on the object holds the object's lock (`with self._use as
    ptr`), and close() takes the same lock before it frees: so a State is used by one thread
    at a time, as the C library requires, and close() in another thread waits for a running
    call instead of freeing memory under it.

    The lock is reentrant (a method may call another), so close() can also run in the thread
    that is inside a call: from a signal handler, from a __del__ the garbage collector runs,
    from a callback. Then the object is marked closed at once (any further use raises
    ValueError) but freed only when the outermost running call leaves (the count in _calls).
    Arguments are converted before the lock is taken, so that their own code (__index__,
    __eq__, __str__) runs while no call holds the pointer.
    """

    def __init__(self) -> None:
        if getattr(self, "_finalizer", None) is not None:
            # Calling __init__ again would drop the C object another thread may be using.
            raise TypeError("%s is already initialised" % type(self).__name__)
        self._lock = threading.RLock()
        self._ptr: Optional[c_void_p] = None
        self._finalizer: Optional[weakref.finalize] = None
        self._calls = 0
        self._use = _Use(self)

    def _own(self, ptr: c_void_p, free: Callable[[c_void_p], None]) -> None:
        self._ptr = ptr
        # A finalizer rather than __del__: it holds the pointer, not the object, and runs at
        # most once whichever of close() and collection comes first.
        self._finalizer = weakref.finalize(self, free, ptr)
        # Not at interpreter exit: a daemon thread may still be inside a call on the object
        # then, and the process's memory goes back to the system anyway.
        self._finalizer.atexit = False

    def _free(self) -> None:
        if self._finalizer is not None:
            self._finalizer()

    def close(self) -> None:
        """Release the C object (once; later calls do nothing). Waits for a call on the object
        running in another thread to finish first; a close() from inside a running call of
        this thread (a signal handler, a __del__) takes effect when that call returns."""
        with self._lock:
            self._ptr = None
            if self._calls == 0:
                self._free()

    def _check_open(self) -> None:
        if self._ptr is None:
            raise closed_error(self)

    @property
    def closed(self) -> bool:
        return self._ptr is None


class _Pair:
    """Both objects' `_use`, always entered in the same order (by id of the lock), so that
    a.f(b) in one thread and b.f(a) in another cannot deadlock. Gives (a's ptr, b's ptr)."""

    __slots__ = ("_a", "_b", "_entered")

    def __init__(self, a: Handle, b: Handle) -> None:
        self._a, self._b = a, b
        self._entered: Tuple[Handle, ...] = ()

    def __enter__(self) -> Tuple[c_void_p, c_void_p]:
        a, b = self._a, self._b
        first, second = (a, b) if id(a._lock) <= id(b._lock) else (b, a)
        p1 = first._use.__enter__()
        try:
            p2 = second._use.__enter__()
        except BaseException:
            first._use.__exit__(None, None, None)
            raise
        self._entered = (first, second)
        return (p1, p2) if first is a else (p2, p1)

    def __exit__(self, *exc: object) -> None:
        first, second = self._entered
        try:
            second._use.__exit__(None, None, None)
        finally:
            first._use.__exit__(None, None, None)


def locked_pair(a: Handle, b: Handle) -> _Pair:
    return _Pair(a, b)
