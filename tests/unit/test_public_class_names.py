"""No two different public classes share a name (issue 15 item 5: two unrelated ``Servers``)."""

import importlib

PACKAGES = ["fairalloc", "fairalloc.scheduling", "fairalloc.sim", "fairalloc.exact", "fairalloc.kinetic",
            "fairalloc.workloads", "fairalloc.mechanisms"]


def test_public_class_names_are_unique():
    seen: dict[str, tuple[str, type]] = {}
    clashes = []
    for pkg in PACKAGES:
        mod = importlib.import_module(pkg)
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name)
            if not isinstance(obj, type):
                continue
            if obj.__name__ in seen and seen[obj.__name__][1] is not obj:
                clashes.append(f"{pkg}.{name} and {seen[obj.__name__][0]}")
            seen.setdefault(obj.__name__, (f"{pkg}.{name}", obj))
    assert not clashes, clashes


def test_scheduling_free_capacity_is_not_the_simulators_servers():
    from fairalloc.scheduling import FreeCapacity
    from fairalloc.sim import Servers

    assert FreeCapacity.__name__ == "FreeCapacity" and not issubclass(Servers, FreeCapacity)
