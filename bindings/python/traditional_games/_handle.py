"""What Rules and State share: one C object, owned once, used under a lock."""

from __future__ import annotations

import contextlib
import threading
import weakref
from ctypes import c_void_p
from typing import Callable, Iterator, Optional


class Handle:
    """The owner of one C object (a tg_rules or a tg_state).

    Every call into the library on the object holds the object's lock, and close() takes the
    same lock before it frees: so a State is used by one thread at a time, as the C library
    requires, and close() in one thread waits for a call running in another instead of freeing
    memory under it. The lock is reentrant so that a method may call another.
    """

    def __init__(self) -> None:
        if getattr(self, "_finalizer", None) is not None:
            # Calling __init__ again would drop the C object another thread may be using.
            raise TypeError("%s is already initialised" % type(self).__name__)
        self._lock = threading.RLock()
        self._ptr: Optional[c_void_p] = None
        self._finalizer: Optional[weakref.finalize] = None

    def _own(self, ptr: c_void_p, free: Callable[[c_void_p], None]) -> None:
        self._ptr = ptr
        # A finalizer rather than __del__: it holds the pointer, not the object, and runs at
        # most once whichever of close() and collection comes first.
        self._finalizer = weakref.finalize(self, free, ptr)
        # Not at interpreter exit: a daemon thread may still be inside a call on the object
        # then, and the process's memory goes back to the system anyway.
        self._finalizer.atexit = False

    def close(self) -> None:
        """Release the C object (once; later calls do nothing). Waits for a call on the object
        running in another thread to finish first."""
        with self._lock:
            self._ptr = None
            if self._finalizer is not None:
                self._finalizer()

    @property
    def closed(self) -> bool:
        return self._ptr is None

    def _handle(self) -> c_void_p:
        """The pointer, for a caller that holds the lock."""
        ptr = self._ptr
        if ptr is None:
            raise ValueError("operation on a closed %s" % type(self).__name__)
        return ptr


@contextlib.contextmanager
def locked_pair(a: Handle, b: Handle) -> Iterator[None]:
    """Both objects' locks, always taken in the same order (by id), so that a.f(b) in one
    thread and b.f(a) in another cannot deadlock."""
    locks = sorted({id(h._lock): h._lock for h in (a, b)}.items())
    for _, lock in locks:
        lock.acquire()
    try:
        yield
    finally:
        for _, lock in reversed(locks):
            lock.release()
