"""Opt-in: record every numba compilation of this Python process (benchmarks/ci_compile_report.py).

Python imports ``sitecustomize`` at start-up from the path; ``ci_compile_report.py`` puts this folder on
``PYTHONPATH`` (with ``FAIRALLOC_COMPILE_LOG`` set) for the runs it measures, so that pytest's xdist
workers, Dask workers and the subprocesses tests start are all recorded. Nothing happens unless
``FAIRALLOC_COMPILE_LOG`` is set, and numba is not imported here: the recorder is installed when the
process itself imports numba.
"""

import os
import sys

if os.environ.get("FAIRALLOC_COMPILE_LOG"):
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    try:
        import ci_compile_report

        ci_compile_report.install_on_numba_import()
    except Exception as exc:    # a measuring aid must not break the process it watches
        print(f"sitecustomize: compile recorder not installed: {exc!r}", file=sys.stderr)
    finally:
        sys.path.pop(0)
