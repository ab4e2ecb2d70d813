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
thread, only the hard stops apply.
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
    stuck in compiled code, which the alarm cannot interrupt)."""

    def __init__(self) -> None:
        self.current: tuple[float, str] | None = None
        self.thread: threading.Thread | None = None

    def watch(self, deadline: float, what: str) -> None:
        self.current = (deadline, what)
        if self.thread is None:
            self.thread = threading.Thread(target=self._run, daemon=True, name="fairalloc-check-watchdog")
            self.thread.start()

    def clear(self) -> None:
        self.current = None

    def _run(self) -> None:  # pragma: no cover - ends the process
        while True:
            time.sleep(0.25)
            cur = self.current
            if cur is not None and time.monotonic() > cur[0]:
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
        _watchdog.watch(time.monotonic() + seconds + grace,
                        f"{name} did not return within {seconds:g} s (--call-seconds) and {grace:g} s more on "
                        f"this {type(instance).__name__}: {_describe(instance)}")
        with contextlib.suppress(Exception):        # no usable stderr (a notebook): the watchdog alone
            faulthandler.dump_traceback_later(seconds + grace + 2.0, exit=True, file=sys.stderr)
    if not alarm:
        try:
            yield
        finally:
            _stop_watching(hard_stop)
        return

    def ring(signum, frame):
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


def _stop_watching(hard_stop: bool) -> None:
    _watchdog.clear()
    if hard_stop:
        faulthandler.cancel_dump_traceback_later()
