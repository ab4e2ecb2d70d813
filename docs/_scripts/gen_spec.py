"""Generate the "Sweep spec format" page from the spec's JSON Schema at build time (mkdocs-gen-files).

The page is ``fairalloc.experiments.spec.schema_markdown()``: the schema every spec is validated
against when it is loaded, so the page and the validation cannot disagree.
"""

from __future__ import annotations

import mkdocs_gen_files

from fairalloc.experiments.spec import schema_markdown

with mkdocs_gen_files.open("guides/sweep-spec.md", "w") as fh:
    fh.write(schema_markdown())
mkdocs_gen_files.set_edit_path("guides/sweep-spec.md", "../fairalloc/experiments/spec.py")
