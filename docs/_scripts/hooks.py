"""MkDocs hooks of the fairalloc site.

* MathJax offline: the site serves MathJax 3 itself. After the build, the browser bundle
  ``es5/tex-mml-chtml.js``, its fonts and the TeX extensions it loads on demand are copied from the
  ``django-static-mathjax`` wheel (a ``docs`` extra; plain static files, no Django needed) into
  ``site/assets/mathjax``; nothing is vendored in the repository.
* Getting started shows the output of ``fairalloc compare`` run during the build (``gen_compare.py``).
* Notebook pages (mkdocs-jupyter) link MathJax 2 from a CDN: that script tag is removed, the site's
  MathJax typesets their markdown cells (``docs/javascripts/mathjax.js``).
"""

from __future__ import annotations

import logging
import re
import shutil
from pathlib import Path

log = logging.getLogger("mkdocs.hooks.fairalloc")

_CDN_MATHJAX = re.compile(r'<script[^>]*src="https://cdnjs\.cloudflare\.com/ajax/libs/mathjax/[^"]*"[^>]*>\s*</script>')


def _mathjax_dir() -> Path:
    try:
        import mathjax  # the django-static-mathjax wheel
    except ImportError as exc:  # pragma: no cover - a build without the docs extra
        raise RuntimeError("MathJax is missing: install the docs extra, pip install -e '.[docs]'") from exc
    root = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5"
    if not (root / "tex-mml-chtml.js").is_file():
        raise RuntimeError(f"MathJax bundle not found at {root}/tex-mml-chtml.js")
    return root


def on_config(config):
    _mathjax_dir()   # fail early, with the fix, when the extra is not installed
    return config


def on_page_markdown(markdown: str, page, config, files) -> str:
    """Getting started shows the output of ``fairalloc compare`` from this build (``gen_compare.py``)."""
    marker = "<!-- fairalloc compare output -->"
    if marker in markdown:
        out = files.get_file_from_path("assets/compare-output.txt")
        if out is None:
            raise RuntimeError("assets/compare-output.txt was not generated (docs/_scripts/gen_compare.py)")
        markdown = markdown.replace(marker, "```text\n" + out.content_string.rstrip() + "\n```")
    marker = "<!-- fairalloc compare figure -->"
    if marker in markdown:
        fig = files.get_file_from_path("assets/compare.png")
        markdown = markdown.replace(marker, "![fairalloc compare: each greedy against the exact optimum]"
                                    "(assets/compare.png)" if fig is not None else "(no figure: not run in this build)")
    return markdown


def on_post_page(output: str, page, config) -> str:
    return _CDN_MATHJAX.sub("", output)


def on_post_build(config) -> None:
    src = _mathjax_dir()
    dest = Path(config["site_dir"]) / "assets" / "mathjax"
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy2(src / "tex-mml-chtml.js", dest / "tex-mml-chtml.js")
    for sub in ("output/chtml/fonts/woff-v2", "input/tex/extensions"):
        shutil.copytree(src / sub, dest / sub, dirs_exist_ok=True)
    log.info("MathJax copied to %s", dest)

