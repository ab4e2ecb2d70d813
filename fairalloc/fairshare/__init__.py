"""Production fair-share policies (Slurm, HTCondor, Kueue, YARN, Mesos, Volcano) on an account tree, in the terms of SDRF.

Definitions only, one place each: billing (:mod:`.billing`), Slurm's multifactor priority with classic
fair share and Fair Tree (:mod:`.slurm`), HTCondor's user priorities, pie-slice negotiation and group
quotas (:mod:`.htcondor`), Kueue's fair sharing and admission fair sharing (:mod:`.kueue`), YARN's Fair
Scheduler with DRF (:mod:`.yarn`), Mesos' DRF sorter (:mod:`.mesos`), Volcano's proportion, DRF and HDRF
plugins (:mod:`.volcano`). The account tree they share is :class:`fairalloc.accounts.AccountTree`. Their
*pooled forms* (:mod:`.pooled`), the allocation each rule converges to on divisible resources, are what
:mod:`proofs_check` judges the fairness axioms on.
Each per-decision rule is a plain loop over arrays, so that numba compiles the same source for the
simulator (call :func:`fairalloc.fairshare._jit.register` before ``njit``); the Python-level functions
check their input and call those loops.

The decayed usage of Slurm, HTCondor's real user priority and Kueue's admission-fair-sharing usage are
SDRF's commitments (Eq. 6) computed on the whole use instead of the use above the fair share; the conversions between half-life, delta and
tau are :mod:`fairalloc.commitments`'.

>>> from fairalloc.accounts import AccountTree
>>> fairshare_factors(AccountTree.flat(["a", "b"]), [3.0, 1.0]).tolist()      # Fair Tree ranks
[0.5, 1.0]
"""

from . import billing, htcondor, kueue, mesos, pooled, slurm, volcano, yarn
from .billing import Billing
from .htcondor import HTCondorPriority, update_rup
from .kueue import AdmissionFairSharing, KueueFairSharing, KueueQueues
from .mesos import MesosSorter
from .slurm import SlurmPriority, fairshare_factors, sshare
from .volcano import VolcanoHDRF, VolcanoQueues
from .yarn import YarnQueues

__all__ = ["billing", "slurm", "htcondor", "kueue", "Billing", "SlurmPriority", "HTCondorPriority",
           "fairshare_factors", "sshare", "update_rup", "KueueQueues", "KueueFairSharing", "AdmissionFairSharing",
           "yarn", "YarnQueues", "mesos", "MesosSorter", "volcano",
           "VolcanoQueues", "VolcanoHDRF", "pooled"]
