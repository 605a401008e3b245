"""The grader: state diffs, evaluator matching, verdicts and aggregate metrics.

``diff`` computes what changed, ``grade`` decides pass/fail with reasons a
controller can read, ``metrics`` aggregates runs into pass^k with intervals.
"""
from .diff import count_changes, diff_environment, diff_snapshots, diff_tables, is_empty
from .evaluator import validate_evaluator
from .grade import Grade, grade, noop_would_pass
from .metrics import pass_hat_k, summarize, wilson

__all__ = ["count_changes", "diff_environment", "diff_snapshots", "diff_tables", "is_empty",
           "validate_evaluator", "Grade", "grade", "noop_would_pass",
           "pass_hat_k", "summarize", "wilson"]
