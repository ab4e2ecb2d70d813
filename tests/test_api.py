"""The public namespace is a contract (DESIGN.md): additions are deliberate, removals are breaking."""

import fairalloc as fa

PUBLIC = {
    "Instance", "Cluster", "TaskInstance", "TimeVaryingInstance",
    "AllocationResult", "Status", "SOLUTION_PRESENT",
    "max_min", "drf", "sdrf", "asset_fairness", "ceei",
    "tsf", "cdrf", "tvtsf", "exact",
    "shares", "commitments",
    "available_solvers",
    "workloads", "sim", "simulate", "SimulationResult", "scheduling", "clusters",
    "experiments", "accounts", "fairshare",
    "FairallocError", "InvalidInstanceError", "SolverError", "SolverUnavailableError", "InfeasibleError",
    "FairallocWarning",
}


def test_public_names():
    assert set(fa.__all__) == PUBLIC
    for name in fa.__all__:
        assert hasattr(fa, name), name


def test_errors_hierarchy():
    assert issubclass(fa.InvalidInstanceError, ValueError)
    assert issubclass(fa.InvalidInstanceError, fa.FairallocError)
    assert issubclass(fa.SolverUnavailableError, fa.SolverError)
    assert issubclass(fa.InfeasibleError, fa.SolverError)
