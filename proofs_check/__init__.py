"""proofs_check: fairness-axiom checkers with witnesses, manipulation searches and hypothesis strategies.

Imports :mod:`fairalloc`; fairalloc never imports this package.
"""

__all__: list[str] = []
