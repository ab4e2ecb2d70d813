"""Engine admission: ``ClusterState.never_fits_rows`` (vectorised on servers without placement) gives
the rows and reasons that ``never_fits`` gives one row at a time."""

import numpy as np
import pytest

import fairalloc as fa
from fairalloc.sim.cluster_state import Servers
from fairalloc.workloads import Workload


@pytest.mark.parametrize("servers", [1, 3])
@pytest.mark.parametrize("with_placement", [False, True])
def test_never_fits_rows_is_never_fits_row_by_row(servers, with_placement):
    rng = np.random.default_rng(4)
    n = 200
    res = rng.uniform(0.0, 1.2, (n, 2))          # about 30% of rows ask for more than a server has
    res[::17, 0] = np.nan                        # unknown demands
    res[5, 1] = np.nan
    res[7] = [0.0, 0.0]
    res[9] = [1.0 / 3.0 * 3.0, 0.3]              # at the capacity, up to rounding
    cap = np.tile([[1.0, 1.0]], (servers, 1))
    placement = rng.random((4, servers)) < 0.6 if with_placement else None
    wl = Workload(submit=np.zeros(n), run_time=np.ones(n), user=rng.integers(0, 4, n), resources=res)
    st = Servers(fa.Cluster(cap), placement)
    st.bind(wl)
    expected = [(j, st.never_fits(j)) for j in range(n) if st.never_fits(j) is not None]
    got = st.never_fits_rows(np.arange(n))
    assert got == expected and len(got) > 0
