"""``call_limit`` stops a slow call but never interrupts numba's compiler.

An exception raised by the alarm inside numba's compiler left llvmlite's objects half-built and the
test process crashed later (segmentation fault in llvmlite's ``_dispose``) when the first call of a
user mechanism compiled fairalloc's core on a cold cache under load. The compiler is stood in for by
a function whose module is named like numba's (the check looks at the frames' module names).
"""

from __future__ import annotations

import signal
import threading
import time
import types

import pytest

from proofs_check.call_limit import MechanismTimeout, call_limit

pytestmark = pytest.mark.skipif(not hasattr(signal, "setitimer"), reason="SIGALRM is POSIX only")


def _module(name: str) -> types.ModuleType:
    mod = types.ModuleType(name)
    exec("import time\n\ndef work(s):\n    time.sleep(s)\n    return 'done'\n", mod.__dict__)
    return mod


def test_a_slow_call_is_stopped():
    user = _module("my_mechanism")
    with pytest.raises(MechanismTimeout, match="did not return within 0.1 s"):
        with call_limit(0.1, "my_mechanism:work", None, False):
            user.work(2.0)


def test_the_alarm_waits_while_numba_compiles_then_gives_the_whole_limit_again():
    compiler = _module("numba.core.fairalloc_stand_in")
    user = _module("my_mechanism")
    assert threading.current_thread() is threading.main_thread()
    t0 = time.monotonic()
    with call_limit(0.1, "my_mechanism:work", None, False):
        assert compiler.work(0.5) == "done"          # five limits long: not interrupted
        assert user.work(0.02) == "done"             # the limit starts again after compiling
    assert time.monotonic() - t0 >= 0.5
    with pytest.raises(MechanismTimeout):            # and user code after compiling is still limited
        with call_limit(0.1, "my_mechanism:work", None, False):
            compiler.work(0.3)
            user.work(2.0)
