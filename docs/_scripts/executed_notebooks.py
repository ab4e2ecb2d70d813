"""Notebooks executed once per CI run: the notebook tests hand their executed notebooks to the docs build.

``.ci/run`` points ``$FAIRALLOC_EXECUTED_NOTEBOOKS`` at a new empty folder for its first leg and its docs
build. A notebook test (``tests/integration/conftest.py``'s ``run_notebook``) that executed a notebook
the way the docs build does (``FAIRALLOC_SCALE=small``, from an empty folder named ``notebooks``, with
the cell below appended for the notebooks listed in :data:`EPILOGUES`) writes it there with its own probe
cell removed (:func:`save`); ``gen_notebooks.py`` then renders that notebook instead of running it again
(:func:`load`). Each saved notebook records the SHA-256 of its ``.py`` source and of every file of the
packages it runs (``fairalloc/``, ``proofs_check/``, ``docs/reproductions/results/``): the docs build
takes it only when both match this checkout now, so the outputs it shows were computed by this
checkout's code in this run. Anything else (no folder, no file, another digest, another scale) and the
docs build executes the notebook itself, as without the variable.

Standard library and nbformat only: the test fixture loads this file by path.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: the folder both sides use; unset: the docs build executes every notebook
ENV = "FAIRALLOC_EXECUTED_NOTEBOOKS"
#: the scale the docs build runs the notebooks at (``gen_notebooks.main``)
SCALE = "small"
_TREES = ("fairalloc", "proofs_check", "docs/reproductions/results")

#: appended to notebooks/axioms.py: hands the campaign's reports to the claims ledger (``gen_claims.py``)
SAVE_REPORTS = """\
import json as _json, os as _os
with open(_os.environ["FAIRALLOC_DOCS_CLAIMS_JSON"], "w") as _fh:
    _json.dump({"reports": [_r.to_dict() for _r in reports],
                "budget": dict(T_EXAMPLES=T_EXAMPLES, EXACT_EXAMPLES=EXACT_EXAMPLES, EXACT=sorted(EXACT),
                               F_EXAMPLES=F_EXAMPLES, SECONDS=SECONDS, F_SECONDS=F_SECONDS)},
               _fh, default=str)
"""
#: a cell appended (and removed before rendering) per notebook stem; its side file in the folder
EPILOGUES = {"axioms": (SAVE_REPORTS, "axioms.claims.json")}


def digest(source: Path) -> dict[str, str]:
    """SHA-256 of the notebook's source and of every file of the trees its outputs depend on."""
    h = hashlib.sha256()
    for tree in _TREES:
        for p in sorted((ROOT / tree).rglob("*")):
            if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".pyc", ".nbi", ".nbc"):
                h.update(p.relative_to(ROOT).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return {"source": hashlib.sha256(Path(source).read_bytes()).hexdigest(), "packages": h.hexdigest()}


def folder() -> Path | None:
    d = os.environ.get(ENV)
    return Path(d) if d else None


def save(nb, source: Path, seconds: float) -> Path | None:
    """Write the executed notebook ``nb`` of ``source`` (``notebooks/NAME.py``) to the folder, if one is set."""
    import nbformat

    d = folder()
    if d is None:
        return None
    d.mkdir(parents=True, exist_ok=True)
    nb.metadata["fairalloc_executed"] = {**digest(source), "scale": SCALE, "seconds": round(seconds, 1)}
    out = d / f"{Path(source).stem}.ipynb"
    tmp = out.with_suffix(f".{os.getpid()}.tmp")
    nbformat.write(nb, str(tmp))
    os.replace(tmp, out)
    return out


def load(source: Path):
    """The notebook of ``source`` executed in this run by the tests, or ``(None, why not)``."""
    import nbformat

    d = folder()
    if d is None:
        return None, f"${ENV} not set"
    path = d / f"{Path(source).stem}.ipynb"
    if not path.is_file():
        return None, f"{path.name} not executed by the tests of this run"
    nb = nbformat.read(str(path), as_version=4)
    meta = nb.metadata.pop("fairalloc_executed", {})
    if meta.get("scale") != SCALE or {k: meta.get(k) for k in ("source", "packages")} != digest(source):
        return None, f"{path.name} was executed from other sources or at another scale"
    side = EPILOGUES.get(Path(source).stem)
    if side is not None and not (d / side[1]).is_file():
        return None, f"{side[1]} missing"
    return nb, float(meta.get("seconds", 0.0))


def side_file(stem: str) -> Path | None:
    """Where the epilogue of notebook ``stem`` writes its output in the folder (None: none or no folder)."""
    d = folder()
    return None if d is None or stem not in EPILOGUES else d / EPILOGUES[stem][1]

