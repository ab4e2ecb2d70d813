"""Built-in clusters from the papers, ready for :class:`~fairalloc.TaskInstance` and the simulators.

Each function returns a new :class:`~fairalloc.Cluster` and says where its numbers come from.

>>> import fairalloc as fa
>>> c = fa.clusters.tvtsf_table3()
>>> c.n_servers, c.totals.tolist()      # 5*2 + 5*4 + 10*8 + ... + 5*104 cores; 5*8 + ... + 5*384 GB
(100, [3150.0, 12120.0])
"""

from __future__ import annotations

from .model import Cluster

__all__ = ["tvtsf_table3", "drf_example", "pool"]

#: TV-TSF paper, Table 3: (number of servers, cores, GB of memory).
TVTSF_TABLE3 = ((5, 2, 8), (5, 4, 16), (10, 8, 32), (10, 12, 48), (10, 16, 64), (10, 24, 96),
                (20, 32, 128), (20, 52, 192), (5, 64, 256), (5, 104, 384))


def tvtsf_table3() -> Cluster:
    """The 100-server, two-resource cluster of the TV-TSF experiments (cores, GB).

    Ten server types, from 5 x (2 cores, 8 GB) to 5 x (104 cores, 384 GB), in the order of the
    paper's Table 3 (``papers/tvtsf.md``). Servers are named ``"<cores>c<GB>g-<j>"``; resources
    ``("cpu", "mem")``.

    Returns
    -------
    Cluster
        A new cluster, shape (100, 2).

    Examples
    --------
    The totals are Table 3's counts times capacities: 5·2 + 5·4 + 10·8 + 10·12 + 10·16 + 10·24 + 20·32
    + 20·52 + 5·64 + 5·104 = 3150 cores and likewise 12120 GB:

    >>> c = tvtsf_table3()
    >>> c.n_servers, c.totals.tolist(), c.server_names[0], c.resource_names
    (100, [3150.0, 12120.0], '2c8g-0', ('cpu', 'mem'))

    References
    ----------
    .. [1] Li Jie, Wang Jianzhou, "A fair multi-resource allocation mechanism for time-varying
       discrete jobs with placement constraints", Chinese Journal on Internet of Things, 2024,
       Section 3, Table 3.
    """
    counts = [n for n, _, _ in TVTSF_TABLE3]
    caps = [[c, g] for _, c, g in TVTSF_TABLE3]
    names = [f"{c}c{g}g-{j}" for n, c, g in TVTSF_TABLE3 for j in range(n)]
    return Cluster.from_types(counts, caps, server_names=names, resource_names=["cpu", "mem"],
                              resource_units=["cores", "GB"])


def drf_example() -> Cluster:
    """One server with 9 CPUs and 18 GB: the DRF paper's running example (Ghodsi et al., NSDI 2011, Section 4).

    Returns
    -------
    Cluster
        One server named ``"drf"``, resources ``("cpu", "mem")``.

    Examples
    --------
    >>> drf_example().capacities.tolist()
    [[9.0, 18.0]]
    """
    return Cluster([[9.0, 18.0]], server_names=["drf"], resource_names=["cpu", "mem"],
                   resource_units=["cores", "GB"])


def pool(n_resources: int = 2, capacity: float = 1.0) -> Cluster:
    """One server holding the whole pool, every resource of size ``capacity``: SDRF's normalised setting.

    The SDRF paper (Section 3) normalises every resource total to 1 and pools it; a
    :class:`~fairalloc.Cluster` with one server is that pool for the task schedulers.

    Parameters
    ----------
    n_resources : int, optional
        Number of resources, >= 1 (default 2).
    capacity : float, optional
        Size of every resource (default 1).

    Returns
    -------
    Cluster
        One server named ``"pool"``.

    Raises
    ------
    InvalidInstanceError
        ``n_resources < 1``, or a ``capacity`` that is not positive and finite.

    Examples
    --------
    >>> pool(3).capacities.tolist()
    [[1.0, 1.0, 1.0]]
    >>> pool(0)
    Traceback (most recent call last):
        ...
    fairalloc.errors.InvalidInstanceError: n_resources=0 must be >= 1
    """
    n = int(n_resources)
    if n < 1:
        from .errors import InvalidInstanceError
        raise InvalidInstanceError(f"n_resources={n_resources!r} must be >= 1", argument="n_resources",
                                   value=n_resources)
    return Cluster([[float(capacity)] * n], server_names=["pool"])
