"""Default numerical tolerances, kept in one place (every float comparison takes ``atol``)."""

__all__ = ["ATOL", "RTOL", "FLOOR_EPS"]

#: Absolute tolerance for comparisons of shares, levels and usage in normalised units (capacity 1).
ATOL = 1e-9
#: Relative tolerance used together with :data:`ATOL`.
RTOL = 1e-9
#: Slack added before taking a floor of a ratio that should be an integer (``0.3 / 0.1`` is 2.999...).
FLOOR_EPS = 1e-9
