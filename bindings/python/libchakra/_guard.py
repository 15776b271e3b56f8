# SPDX-License-Identifier: Apache-2.0
"""One handle, one C call at a time.

ctypes releases the GIL while a C function runs, and a libchakra handle is
not thread-safe: a Reader iterated from four threads crashed the
interpreter. Every call into the library on a handle goes through its
Guard, which serializes calls from different threads (a lock) and refuses
a call made from inside another call on the same handle (a callback that
calls back in) unless that callback allows it (the feeder's ready
callback may complete, issue and close), raising StateError instead of
corrupting the handle."""

import threading

from ._errors import StateError


class Guard:
    __slots__ = ("_lock", "_depth", "allow")

    def __init__(self):
        self._lock = threading.RLock()
        self._depth = 0
        self.allow = 0  # > 0 inside a callback that may call back in

    def __enter__(self):
        self._lock.acquire()
        if self._depth and not self.allow:
            self._lock.release()
            raise StateError("re-entrant call: this handle is busy in a call that is running "
                             "one of its callbacks", -15)
        self._depth += 1
        return self

    def __exit__(self, *exc):
        self._depth -= 1
        self._lock.release()
        return False


class Closing:
    """A handle that has close(): a context manager closing it on exit, and
    closed when collected (quietly: at interpreter shutdown the module may
    already be torn down)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
