"""Tests for grader.metrics: Wilson intervals and tau-bench pass^k."""
import pytest

from grader.metrics import pass_hat_k, summarize, wilson


def test_wilson_known_values():
    lo, hi = wilson(8, 10)
    assert lo == pytest.approx(0.4902, abs=1e-3) and hi == pytest.approx(0.9433, abs=1e-3)
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-3)
    lo, hi = wilson(10, 10)
    assert hi == 1.0 and lo == pytest.approx(0.7225, abs=1e-3)
    assert wilson(0, 0) == (0.0, 1.0)


def test_wilson_accepts_fractional_successes_and_narrows_with_n():
    lo1, hi1 = wilson(5, 10)
    lo2, hi2 = wilson(50.0, 100)
    assert lo1 < lo2 < 0.5 < hi2 < hi1


def test_pass_hat_k_examples():
    results = {"a": [True, True, True, True], "b": [True, True, False, False], "c": [False] * 4}
    assert pass_hat_k(results, 1) == pytest.approx((1 + 0.5 + 0) / 3)
    # b: C(2,2)/C(4,2) = 1/6
    assert pass_hat_k(results, 2) == pytest.approx((1 + 1 / 6 + 0) / 3)
    assert pass_hat_k(results, 4) == pytest.approx(1 / 3)


def test_pass_hat_k_errors():
    with pytest.raises(ValueError, match="needs at least 3"):
        pass_hat_k({"a": [True, True]}, 3)
    with pytest.raises(ValueError):
        pass_hat_k({}, 1)
    with pytest.raises(ValueError):
        pass_hat_k({"a": [True]}, 0)


def test_summarize_by_domain_and_cis():
    results = {"ap1": [True, True, False], "ap2": [True, True, True], "pay1": [False, False, True]}
    domains = {"ap1": "ap", "ap2": "ap", "pay1": "payroll"}
    s = summarize(results, 3, domains)
    assert s["pass1"] == pytest.approx((2 / 3 + 1 + 1 / 3) / 3)
    assert s["passk"] == pytest.approx(1 / 3)
    assert s["pass1_ci"] == pytest.approx(wilson(s["pass1"] * 3, 3))
    assert s["passk_ci"] == pytest.approx(wilson(1, 3))
    assert s["by_domain"]["ap"] == {"n": 2, "pass1": pytest.approx(5 / 6), "passk": 0.5}
    assert s["by_domain"]["payroll"]["passk"] == 0.0
    assert summarize({"x": [True]}, 1, {})["by_domain"] == {"unknown": {"n": 1, "pass1": 1.0, "passk": 1.0}}
