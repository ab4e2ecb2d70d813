"""A time limit on each call of a user's mechanism (``fairalloc check --mechanism ... --call-seconds``).

A call still running at its limit is interrupted by ``SIGALRM`` in the main thread, which stops
Python code and blocking calls (``time.sleep``, a lock): :class:`MechanismTimeout` is raised in its
place, naming the instance, and the campaign ends the cell with status ``"timeout"``. A call stuck in
compiled code that never returns to the interpreter cannot be interrupted: with ``hard_stop`` (the
command line sets it) a watchdog thread ends the process a grace period later (the limit again, at
least 5 s), saying so on stderr, with exit status :data:`HARD_STOP_STATUS`, instead of hanging. A
loop in C that also holds the GIL stops every Python thread, the watchdog's too: for that case
:func:`faulthandler.dump_traceback_later` (a C thread) ends the process 2 s later still, printing
"Timeout" and the stack of the call (exit status 1). Without ``SIGALRM`` (Windows) or off the main
thread, only the hard stops apply. Compilation is never interrupted: an alarm that finds the call in
numba's compiler waits for it to finish, then gives the whole limit again (:func:`_compiling`); the
hard stops wait alike (the watchdog looks at the call's stack before it stops the process).
"""

from __future__ import annotations

import contextlib
import faulthandler
import json
import os
import signal
import sys
import threading
import time
from typing import Any, Iterator

from fairalloc.errors import FairallocError

__all__ = ["MechanismTimeout", "HARD_STOP_STATUS", "call_limit"]

#: Exit status of a process stopped because a call of the user's mechanism hung in compiled code
#: (``fairalloc``'s "no solution / time limit" status).
HARD_STOP_STATUS = 3


class MechanismTimeout(FairallocError, TimeoutError):
    """A call of the user's mechanism did not return within its time limit.

    Parameters
    ----------
    name : str
        The mechanism.
    seconds : float
        The limit.
    instance : object
        The instance it was called on (its ``to_dict()`` goes into the message).

    Attributes
    ----------
    name, seconds, instance
        As given.

    Examples
    --------
    >>> import fairalloc as fa
    >>> exc = MechanismTimeout("mine:f", 2.0, fa.Instance([[1.0], [2.0]]))
    >>> str(exc)[:57]
    'mine:f did not return within 2 s (--call-seconds) on this'
    """

    def __init__(self, name: str, seconds: float, instance: Any) -> None:
        self.name, self.seconds, self.instance = name, seconds, instance
        super().__init__(f"{name} did not return within {seconds:g} s (--call-seconds) on this "
                         f"{type(instance).__name__}: {_describe(instance)}")


def _describe(instance: Any) -> str:
    try:
        from .verdict import jsonable

        return json.dumps(jsonable(instance.to_dict()), separators=(",", ":"))
    except Exception:  # noqa: BLE001 - a description only
        return repr(instance)


class _Interrupted(BaseException):
    """Raised by the alarm inside the user's call (a BaseException: the user's ``except Exception``
    does not swallow it)."""


class _Watchdog:
    """One thread that stops the process when a call runs ``grace`` seconds past its limit (a call
    stuck in compiled code, which the alarm cannot interrupt).

    numba's compiler spends long stretches inside LLVM (a ``ctypes`` call that releases the GIL), where
    the alarm's handler cannot run to postpone the deadline; on a loaded machine one such stretch can
    outlast the limit and the grace period. So before stopping the process the watchdog looks at the
    calling thread's stack: while it is compiling (:func:`_compiling`), the deadline and the
    ``faulthandler`` timer move :data:`_POLL` + ``grace`` seconds on. A lock orders this re-arming with
    :func:`_stop_watching`, so a timer is never re-armed after the call returned.
    """

    def __init__(self) -> None:
        self.current: tuple[float, str] | None = None
        self.thread: threading.Thread | None = None
        self.caller: int | None = None           # the thread whose call is watched
        self.grace = 5.0
        self.lock = threading.RLock()          # (the alarm handler may run on the thread holding it)

    def watch(self, seconds: float, what: str, grace: float) -> None:
        """Stop the process ``seconds`` + ``grace`` from now (and faulthandler 2 s later) unless
        cleared (:meth:`clear`) or postponed; ``what`` is the message."""
        with self.lock:
            self.current = (0.0, what)
            self.caller, self.grace = threading.get_ident(), grace
            self._extend(seconds)
        if self.thread is None:
            self.thread = threading.Thread(target=self._run, daemon=True, name="fairalloc-check-watchdog")
            self.thread.start()

    def clear(self) -> None:
        self.current = None

    def postpone(self, seconds: float) -> None:
        """Move the stop (and faulthandler's) to ``seconds`` + ``grace`` from now."""
        with self.lock:
            if self.current is not None:
                self._extend(seconds)

    def _extend(self, seconds: float) -> None:
        # (lock held) the deadline and faulthandler's timer, seconds + grace (+ 2 s) from now
        self.current = (time.monotonic() + seconds + self.grace, self.current[1])
        with contextlib.suppress(Exception):        # no usable stderr (a notebook): the watchdog alone
            faulthandler.dump_traceback_later(seconds + self.grace + 2.0, exit=True, file=sys.stderr)

    def _caller_compiling(self) -> bool:
        frame = sys._current_frames().get(self.caller) if self.caller is not None else None
        return _compiling(frame)

    def _run(self) -> None:  # pragma: no cover - ends the process
        while True:
            time.sleep(0.25)
            with self.lock:
                cur = self.current
                if cur is None or time.monotonic() <= cur[0]:
                    continue
                if self._caller_compiling():
                    self._extend(_POLL)
                    continue
            print(f"fairalloc check: error: {cur[1]}; it does not respond to interrupts (compiled code?): "
                  "stopping", file=sys.stderr, flush=True)
            os._exit(HARD_STOP_STATUS)


_watchdog = _Watchdog()


@contextlib.contextmanager
def call_limit(seconds: float | None, name: str, instance: Any, hard_stop: bool) -> Iterator[None]:
    """Interrupt the body after ``seconds`` (main thread, SIGALRM); with ``hard_stop``, end the
    process if it has not returned a grace period later (module docstring).

    Parameters
    ----------
    seconds : float or None
        The limit (None: no limit).
    name : str
        The mechanism, for the messages.
    instance : object
        What it was called on, for the messages.
    hard_stop : bool
        End the process when the call cannot be interrupted.

    Raises
    ------
    MechanismTimeout
        The body ran past ``seconds``.

    Examples
    --------
    >>> import time
    >>> try:
    ...     with call_limit(0.2, "sleeper", None, False):
    ...         time.sleep(30)
    ... except MechanismTimeout as exc:
    ...     print(str(exc)[:39])
    sleeper did not return within 0.2 s (--
    """
    if seconds is None:
        yield
        return
    alarm = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if hard_stop:
        grace = max(5.0, seconds)
        _watchdog.watch(seconds, f"{name} did not return within {seconds:g} s (--call-seconds) and {grace:g} s "
                        f"more on this {type(instance).__name__}: {_describe(instance)}", grace)
    if not alarm:
        try:
            yield
        finally:
            _stop_watching(hard_stop)
        return

    compiled = [False]        # did the last ring find the call compiling?

    def ring(signum, frame):
        # never interrupt numba's compiler (see _compiling): look again every _POLL seconds while it
        # compiles, and give the whole limit again from the first ring after it finished
        compiling = _compiling(frame)
        if compiling or compiled[0]:
            compiled[0] = compiling
            again = _POLL if compiling else seconds
            signal.setitimer(signal.ITIMER_REAL, again)
            if hard_stop:
                _watchdog.postpone(again)
            return
        raise _Interrupted()

    before = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    except _Interrupted:
        raise MechanismTimeout(name, seconds, instance) from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)
        _stop_watching(hard_stop)


#: Seconds between two looks at a call that was compiling when its alarm rang.
_POLL = 0.05

#: Modules whose frames mean "the call is compiling": numba's compiler and LLVM's bindings.
_COMPILERS = ("numba.core.", "llvmlite.")


def _compiling(frame: Any) -> bool:
    """True when ``frame`` (where the alarm rang) or a caller runs numba's compiler or llvmlite.

    An exception raised by the alarm inside the compiler leaves LLVM's objects half-built, and the
    process may crash later when they are freed (a segmentation fault was seen in ``llvmlite``'s
    ``_dispose``). So the alarm does not interrupt compilation: it looks again every :data:`_POLL`
    seconds, and at the first look that finds the call out of the compiler it gives the whole limit
    again (the hard stops are postponed alike). A first call that compiles (a fairalloc scheduler on
    a cold numba cache, or the user's own ``@numba.njit`` code) thus gets its compilation time plus
    at least the limit. Compiled code *running* has no Python frames of these modules, so a call
    stuck there is still stopped.

    Examples
    --------
    >>> import inspect
    >>> _compiling(inspect.currentframe())
    False
    """
    while frame is not None:
        if str(frame.f_globals.get("__name__", "")).startswith(_COMPILERS):
            return True
        frame = frame.f_back
    return False


def _stop_watching(hard_stop: bool) -> None:
    with _watchdog.lock:
        _watchdog.clear()
        if hard_stop:
            faulthandler.cancel_dump_traceback_later()
