"""Workloads: one in-memory table (:class:`Workload`), trace readers and generators.

Readers stream or chunk their files: :func:`read_swf` (Parallel Workloads Archive),
:func:`read_google2011` (Google clusterdata-2011 ``task_events``), :func:`read_alibaba` (Alibaba
``batch_task`` v2017/v2018). Generators: :func:`lublin` (Lublin-Feitelson 2003 rigid jobs),
:func:`google_like` and :func:`alibaba_like` (task workloads); :func:`fit_google_like` fits
``google_like``'s :class:`GoogleLikeParams` to a trace. Task workloads for the multi-resource
schedulers: :func:`prepare_tasks` (cleaning, documented), :func:`mean_utilization` (the SDRF paper's
*R*), :func:`from_time_varying`.
"""

from .alibaba import read_alibaba
from .google2011 import read_google2011
from .google_fit import GoogleLikeParams, fit_google_like
from .lublin import lublin
from .swf import SWFFormatError, read_swf, write_swf
from .synthetic import alibaba_like, google_like
from .tasks import from_time_varying, mean_utilization, prepare_tasks
from .workload import Workload

__all__ = ["Workload", "read_swf", "write_swf", "SWFFormatError", "read_google2011", "read_alibaba",
           "lublin", "google_like", "alibaba_like",
           "GoogleLikeParams", "fit_google_like", "prepare_tasks", "mean_utilization", "from_time_varying"]
