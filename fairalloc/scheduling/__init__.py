"""Greedy online schedulers: pick what to start next given the cluster state.

Job-queue policies (rigid parallel jobs on identical processors) live in :mod:`.queue`; multi-resource
task schedulers (DRF / SDRF Algorithm 1, TSF, CDRF, TV-TSF Algorithms 1-5) in their own modules.
"""

__all__: list[str] = []
