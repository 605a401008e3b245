"""Reports a reader can trust: the paper's tables and plots, a leaderboard page and a run viewer,
built from results files (see build.py for the folder layout)."""
from .build import build_report
from .load import ResultsError

__all__ = ["build_report", "ResultsError"]
