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


_WATCHDOG_SCRIPT = r"""
import threading, types, sys
from proofs_check.call_limit import call_limit

compiler = types.ModuleType("numba.core.fairalloc_stand_in")
exec("import time\n\ndef work(s):\n    time.sleep(s)\n    return 'done'\n", compiler.__dict__)
out = []

def call():
    # off the main thread: no alarm, only the hard stops (watchdog and faulthandler) apply
    with call_limit(0.2, "my_mechanism:work", None, True):
        out.append(compiler.work(6.5))      # 'compiling' past the limit + the 5 s grace period

t = threading.Thread(target=call)
t.start()
t.join()
print(out[0])
"""


def test_the_hard_stop_waits_while_the_call_compiles(tmp_path):
    """The watchdog (and faulthandler's timer) must not end the process while the watched call is in
    numba's compiler: LLVM's long ``ctypes`` calls keep the alarm's handler from running, so on a
    loaded machine a cold compile can outlast limit + grace (an xdist worker was killed this way in
    ``test_check_cli``). Deadline here: 0.2 s + 5 s grace; the stand-in compiles 6.5 s and must end
    normally (exit 0, not :data:`HARD_STOP_STATUS` 3 or faulthandler's 1)."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[3]
    proc = subprocess.run([sys.executable, "-c", _WATCHDOG_SCRIPT], capture_output=True, text=True,
                          cwd=root, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "done"
