"""`cfab report` from fixed results files, checked against hand computations.

The fixtures (tests/fixtures/results/, rebuilt by make_results.py there) run six tasks k=3
times. The scripted model's schedule, per task (P pass, F fail, ! infrastructure error):

    cf_A_etc_forecast_1042      PA  D2  P P P   c=3
    cf_A_etc_forecast_2014      PA  D2  P F P   c=2
    cf_C_invoice_code_9140      AP  D3  F P F   c=1  (the two F invoke the guarded bill.post)
    cf_H_procore_erp_sync_1042  CS  D2  P P !   two graded runs < k: not scored
    cf_H_procore_erp_sync_2014  CS  D2  F F F   c=0
    cf_H_procore_erp_sync_4012  CS  D2  P P F   c=2

so over the five scored tasks pass^1 = (3+2+1+0+2)/3/5 = 8/15, pass^2 = (1 + 1/3 + 0 + 0 + 1/3)/5
= 1/3 and pass^3 = (1+0+0+0+0)/5 = 1/5.
"""
from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent.cli import main
from agent.reporting import ResultsError, build_report
from agent.reporting.compare import WITHIN_NOISE, compare
from agent.reporting.load import load_entries
from agent.reporting.stats import EntryStats

FIXTURES = Path(__file__).parent / "fixtures" / "results"
FILES = [FIXTURES / f"{name}.json" for name in ("scripted-model", "oracle", "noop", "eager")]
MODEL = "scripted/mixed-1"
# Wilson (z = 1.96, n = 5 tasks) by hand: z^2 = 3.8416, denominator 1 + 3.8416/5 = 1.76832.
# p = 8/15: centre (0.53333 + 0.38416)/1.76832 = 0.51885, half 1.96*sqrt(0.04978 + 0.03842)/1.76832
# = 0.32917 -> [0.18969, 0.84802]; p = 1/5: centre 0.33035, half 0.29412 -> [0.03622, 0.62447].
PASS1_CI, PASS3_CI = (0.18969, 0.84802), (0.03622, 0.62447)
# 0/5 (the floor on the model's five tasks): centre 0.38416/1.76832 = 0.21724 = half -> [0, 0.43449]
FLOOR5_CI = (0.0, 0.43449)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    summary = build_report(FILES, out)
    return out, summary


@pytest.fixture(scope="module")
def stats():
    return {s.entry.label: s for s in (EntryStats(e) for e in load_entries(FILES))}


def rows(out: Path, table: str) -> list[dict]:
    with open(out / "tables" / f"{table}.csv", newline="") as fh:
        return list(csv.DictReader(fh))


def by_model(out: Path, table: str, column: str = "Model") -> dict[str, dict]:
    return {row[column]: row for row in rows(out, table)}


def test_overall_numbers_match_the_hand_computation(report):
    out, _ = report
    table = by_model(out, "overall")
    model = table[MODEL]
    assert int(model["#"]) == 5  # the task with an infrastructure error is not scored
    assert float(model["pass^1"]) == pytest.approx(8 / 15)
    assert float(model["pass^3"]) == pytest.approx(1 / 5)
    assert (float(model["pass^1 ci_low"]), float(model["pass^1 ci_high"])) == pytest.approx(PASS1_CI, abs=1e-4)
    assert (float(model["pass^3 ci_low"]), float(model["pass^3 ci_high"])) == pytest.approx(PASS3_CI, abs=1e-4)
    assert float(model["pass^3 − pass^1"]) == pytest.approx(1 / 5 - 8 / 15)
    # 17 graded runs of 10,000 + 500 tokens, the failed provider call none: 178,500 / 18 runs
    assert float(model["Tokens/run"]) == pytest.approx(178_500 / 18)
    assert float(model["Cost"]) == pytest.approx(17 * (0.010 + 0.002))  # $1 / $4 per Mtok
    assert model["vs. leader (pass^3)"] == "leader"
    oracle, noop = table["Oracle (environment check)"], table["Trivial (no-op)"]
    assert (float(oracle["pass^1"]), float(oracle["pass^3"]), int(oracle["#"])) == (1.0, 1.0, 6)
    assert (float(noop["pass^1"]), float(noop["pass^3"])) == (0.0, 0.0)
    # n = 5 cannot tell the floor from the model: the honest marker says so
    assert noop["vs. leader (pass^3)"] == WITHIN_NOISE


def test_pass_k_curve_uses_the_unbiased_estimator(stats):
    curve = dict(stats[MODEL].curve())
    assert curve == pytest.approx({1: 8 / 15, 2: 1 / 3, 3: 1 / 5})


def test_per_domain_and_difficulty(report):
    out, _ = report
    domains = by_model(out, "domains", "Domain")
    assert list(domains) == ["Project Accounting", "AP & Procurement", "Cross-system", "Overall"]
    expected = {"Project Accounting": (2, 2, 5 / 6, 1 / 2), "AP & Procurement": (1, 1, 1 / 3, 0.0),
                "Cross-system": (3, 2, 1 / 3, 0.0), "Overall": (6, 5, 8 / 15, 1 / 5)}
    for domain, (tasks, n, p1, p3) in expected.items():
        row = domains[domain]
        assert (int(row["#"]), int(row[f"{MODEL} n"])) == (tasks, n)
        assert (float(row[f"{MODEL} pass^1"]), float(row[f"{MODEL} pass^3"])) == pytest.approx((p1, p3))
    levels = [row["Difficulty (n)"] for row in rows(out, "difficulty")]
    assert levels == ["1 — <5 min (0)", "2 — <30 min (5)", "3 — <2 hr (1)", "4 — >2 hr (0)"]
    d2, d3 = rows(out, "difficulty")[1], rows(out, "difficulty")[2]
    assert (float(d2[f"{MODEL} pass^1"]), float(d2[f"{MODEL} pass^3"])) == pytest.approx((7 / 12, 1 / 4))
    assert (float(d3[f"{MODEL} pass^1"]), float(d3[f"{MODEL} pass^3"])) == pytest.approx((1 / 3, 0.0))
    assert rows(out, "difficulty")[0][f"{MODEL} pass^1"] == ""  # no task: no number


def test_per_task_matrix_marks_every_run(report):
    out, _ = report
    tasks = by_model(out, "tasks", "Task")
    assert tasks["cf_A_etc_forecast_2014"][f"{MODEL} runs"] == "PFP"
    assert float(tasks["cf_A_etc_forecast_2014"][f"{MODEL} pass^1"]) == pytest.approx(2 / 3)
    assert tasks["cf_H_procore_erp_sync_1042"][f"{MODEL} runs"] == "PPI"
    assert tasks["cf_H_procore_erp_sync_1042"][f"{MODEL} pass^1"] == ""  # unscored, not 1.0
    assert all(row["Oracle (environment check) runs"] == "PPP" for row in tasks.values())


def test_money_guard_behaviour_per_model(report):
    out, _ = report
    guard = by_model(out, "guard")
    def triple(name):
        row = guard[name]
        return tuple(int(row[c]) for c in ("Staged correctly", "Invoked a guarded tool", "Neither"))
    assert triple(MODEL) == (1, 2, 0)
    assert triple("Oracle (environment check)") == (3, 0, 0)
    assert triple("Trivial (no-op)") == (0, 0, 3)
    assert triple("Over-eager (scripted)") == (0, 3, 0)
    assert int(guard["Over-eager (scripted)"]["Guarded calls on other tasks (runs)"]) == 15
    assert {row["Executed"] for row in guard.values()} == {"0"}


def test_failures_cluster_by_defect_variant(report):
    out, _ = report
    variants = by_model(out, "variants", "Defect variant")
    got = {name: (int(row[f"{MODEL} failed"]), int(row[f"{MODEL} failed n"])) for name, row in variants.items()}
    # the infrastructure error is neither a failure nor a graded run
    assert got == {"already_synced_and_unapproved": (4, 8), "stale_erp_projection": (1, 6),
                   "vendor_dba_on_invoice": (2, 3)}


def test_infrastructure_errors_are_apart_from_failures(report):
    out, _ = report
    infra = by_model(out, "infra")
    row = infra[MODEL]
    assert (int(row["Infra errors"]), int(row["Tasks affected"]), row["Unscored"]) == \
        (1, 1, "cf_H_procore_erp_sync_1042")
    assert "HTTP 503" in row["Most common error"]
    assert int(infra["Trivial (no-op)"]["Infra errors"]) == 0
    usage = by_model(out, "usage")[MODEL]
    assert float(usage["Cost per passed run"]) == pytest.approx(0.204 / 10)  # 10 passed runs


def test_comparisons_use_the_common_tasks_and_mark_noise(stats):
    result = compare(stats[MODEL], stats["Trivial (no-op)"], "pass1")
    assert result.n == 5 and result.verdict == WITHIN_NOISE
    assert result.b.pass1_ci == pytest.approx(FLOOR5_CI, abs=1e-4)
    assert result.a.pass1_ci == pytest.approx(PASS1_CI, abs=1e-4)


def _results(policy, model, outcomes, k=1):
    """A minimal results file: one task per outcome list."""
    tasks = [{"instance_id": f"cf_X_{i:03}", "domain": "Billing", "family": "X", "difficulty": 2,
              "apps": ["procore"], "runs": [{"passed": p, "score": float(p), "verdict": []} for p in runs]}
             for i, runs in enumerate(outcomes)]
    return {"policy": policy, "model": model, "transport": "tools", "k": k, "tasks": tasks}


def test_separated_intervals_name_the_leader(tmp_path):
    strong, weak = tmp_path / "a.json", tmp_path / "b.json"
    strong.write_text(json.dumps(_results("llm-tools", "m-strong", [[True]] * 30)))
    weak.write_text(json.dumps(_results("llm-tools", "m-weak", [[False]] * 30)))
    a, b = (EntryStats(e) for e in load_entries([strong, weak]))
    assert compare(a, b, "pass1").verdict == "m-strong ahead (intervals separate)"
    build_report([strong, weak], tmp_path / "out")
    overall = by_model(tmp_path / "out", "overall")
    assert overall["m-weak"]["vs. leader (pass^1)"] == "below the leader (intervals separate)"


def test_the_same_model_twice_gets_distinct_labels(tmp_path):
    one, three = tmp_path / "a.json", tmp_path / "b.json"
    one.write_text(json.dumps(_results("llm-tools", "m/x", [[True]], k=1)))
    three.write_text(json.dumps(_results("llm-tools", "m/x", [[True, False, True]], k=3)))
    labels = [e.label for e in load_entries([one, three])]
    assert labels == ["m/x (tools, k=1)", "m/x (tools, k=3)"]
    assert verdict_k(one, three) == "not comparable (different k)"


def verdict_k(a, b):
    sa, sb = (EntryStats(e) for e in load_entries([a, b]))
    return compare(sa, sb, "passk").verdict


def test_provenance_shown_and_unknown_never_invented(tmp_path):
    model, noop = load_entries([FIXTURES / "scripted-model.json", FIXTURES / "noop.json"])
    assert model.provenance["endpoint"] == "http://127.0.0.1:8000/v1"
    assert model.provenance["temperature"] == "0.0"
    assert re.fullmatch(r"[0-9a-f]{40}", model.provenance["commit"])
    assert noop.provenance["endpoint"] == "n/a (no model)"
    old = json.loads((FIXTURES / "scripted-model.json").read_text())
    del old["provenance"]
    for task in old["tasks"]:
        del task["defect_variant"]
        for run in task["runs"]:
            run.pop("diff", None)
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old))
    (entry,) = load_entries([path])
    assert set(entry.provenance.values()) == {"unknown"}
    build_report([path], tmp_path / "out")
    page = (tmp_path / "out" / "runs" / "scripted_mixed-1" / "cf_A_etc_forecast_1042" / "1.html").read_text()
    assert "Not recorded in this results file." in page and "(not recorded)" in page
    index = (tmp_path / "out" / "index.html").read_text()
    assert index.count(">unknown<") == 5  # commit, endpoint, temperature, date, command line
    assert by_model(tmp_path / "out", "variants", "Defect variant").keys() == {"(not recorded)"}


def test_latex_is_booktabs_with_the_baselines_apart(report):
    out, _ = report
    tex = (out / "tables" / "overall.tex").read_text()
    assert tex.count("\\toprule") == tex.count("\\bottomrule") == 1
    body = tex.split("\\midrule", 1)[1]
    model_part, baseline_part = body.split("\\midrule")  # a rule between models and baselines
    assert "scripted/mixed-1 & 5 & 0.53 {\\scriptsize[.19,.85]} & 0.20 {\\scriptsize[.04,.62]}" in model_part
    assert "Trivial (no-op)" in baseline_part and "Oracle" in baseline_part
    assert "\\(\\mathrm{pass}^{3}\\)" in tex and "pass^" not in tex.replace("\\mathrm{pass}^{", "")
    domains = (out / "tables" / "domains.tex").read_text()
    assert "\\multicolumn{2}{c}{\\textbf{scripted/mixed-1}}" in domains and "AP \\& Procurement" in domains
    md = (out / "tables" / "overall.md").read_text()
    assert "| scripted/mixed-1 | 5 | 0.53 [0.19, 0.85] | 0.20 [0.04, 0.62] | -0.33 | 9.9k | $0.20 | leader |" in md


def test_pages_plots_and_links_are_all_written(report):
    out, summary = report
    assert summary["runs"] == 4 * 6 * 3
    for name in summary["plots"]:
        assert (out / "plots" / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert "<svg" in (out / "plots" / f"{name}.svg").read_text()
    assert "pm" not in summary["tables"]  # no PM-platform task in the fixtures
    for page in [out / "index.html", *out.glob("runs/*/*/*.html")]:
        for ref in re.findall(r'(?:href|src)="([^"#:]+)(?:#[^"]*)?"', page.read_text()):
            assert (page.parent / ref).resolve().is_file(), f"{page.relative_to(out)} -> {ref}"


def test_run_viewer_shows_steps_guard_diff_and_verdict(report):
    out, _ = report
    page = (out / "runs" / "scripted_mixed-1" / "cf_C_invoice_code_9140" / "1.html").read_text()
    assert "NOT PASSED" in page and "accounts-payable/bill.post" in page
    assert "(staged, not executed)" in page and "Crossed the money-movement line" in page
    assert "ap_bills" in page and "JSM-88421" in page  # the diff's added draft bill
    infra = (out / "runs" / "scripted_mixed-1" / "cf_H_procore_erp_sync_1042" / "3.html").read_text()
    assert "NOT SCORED (infrastructure error)" in infra and "HTTP 503" in infra


def test_plots_are_reproducible(tmp_path):
    build_report(FILES[:2], tmp_path / "a")
    build_report(FILES[:2], tmp_path / "b")
    for name in ("reliability", "domain_heatmap"):
        assert (tmp_path / "a" / "plots" / f"{name}.svg").read_bytes() == \
            (tmp_path / "b" / "plots" / f"{name}.svg").read_bytes()


def test_screenshot_recorded_with_a_step_is_shown(tmp_path):
    data = json.loads((FIXTURES / "scripted-model.json").read_text())
    run = data["tasks"][0]["runs"][0]
    run["actions"][0]["screenshot"] = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    run["actions"][1]["screenshot"] = "shots/missing.png"
    path = tmp_path / "shots.json"
    path.write_text(json.dumps(data))
    build_report([path], tmp_path / "out")
    folder = tmp_path / "out" / "runs" / "scripted_mixed-1" / "cf_A_etc_forecast_1042"
    page = (folder / "1.html").read_text()
    assert 'src="1-step1.png"' in page and (folder / "1-step1.png").read_bytes()[:4] == b"\x89PNG"
    assert "screenshot not found: shots/missing.png" in page


def test_pm_block_reported_apart_when_present(tmp_path):
    data = _results("llm-tools", "m/pm", [[True], [False], [True]])
    data["tasks"][0]["apps"] = ["redteam"]
    data["tasks"][1]["apps"] = ["ressio", "vista_erp"]
    path = tmp_path / "pm.json"
    path.write_text(json.dumps(data))
    summary = build_report([path], tmp_path / "out")
    assert "pm" in summary["tables"]
    row = rows(tmp_path / "out", "pm")[0]
    assert int(row["#"]) == 2 and float(row["Overall pass^1"]) == 0.5
    assert float(row["Per-platform pass^1 RedTeam Flex"]) == 1.0 and float(row["Per-platform pass^1 Ressio"]) == 0.0
    assert float(row["Cross-system pass^1"]) == 0.0


def test_cli_report_and_its_errors(tmp_path):
    runner = CliRunner()
    result = runner.invoke(main, ["report", str(FILES[0]), str(FILES[2]), "--out", str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    assert "leaderboard:" in result.output and (tmp_path / "r" / "index.html").is_file()
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"pass1": 1.0}))
    result = runner.invoke(main, ["report", str(bad), "--out", str(tmp_path / "r2")])
    assert result.exit_code == 2 and "not a cfab results file" in result.output
    with pytest.raises(ResultsError):
        load_entries([])


def _sweep(path: Path, model: str | None, policy: str, outcomes: list[bool], split: str | None) -> Path:
    prefix = "cf_A_etc_forecast_pro-" if split == "private" else "cf_A_etc_forecast_"
    tasks = [{"instance_id": f"{prefix}{1000 + i}", "domain": "Project Accounting", "family": "A_etc_forecast",
              "difficulty": 2, "apps": ["procore", "vista_erp"], "money_movement_guard": False,
              "runs": [{"passed": ok, "score": 1.0 if ok else 0.0, "verdict": [], "reply": "", "calls": [],
                        "guarded_calls": []}]} for i, ok in enumerate(outcomes)]
    data = {"policy": policy, "model": model, "k": 1, "transport": "http" if split == "private" else "tools",
            "n_tasks": len(tasks), "tasks": tasks, **({"split": split} if split else {})}
    path.write_text(json.dumps(data))
    return path


def test_public_vs_private_deltas_per_model(tmp_path):
    """The contamination signal: one row per model with results on both the public corpus and
    the private split; Wilson intervals over 10 tasks: 10/10 -> [0.7225, 1], 2/10 -> [0.0567, 0.5098]
    (separate); 3/5 -> [0.2307, 0.8824] and 2/5 -> [0.1176, 0.7693] (overlap)."""
    files = [_sweep(tmp_path / "a-pub.json", "model-a", "llm-tools", [True] * 10, "test"),
             _sweep(tmp_path / "a-pro.json", "model-a", "llm-tools", [True, True] + [False] * 8, "private"),
             _sweep(tmp_path / "b-pub.json", "model-b", "llm-tools", [True, True, True, False, False], None),
             _sweep(tmp_path / "b-pro.json", "model-b", "llm-tools", [True, True, False, False, False], "private"),
             _sweep(tmp_path / "c-pub.json", "model-c", "llm-tools", [True, False], "dev")]
    out = tmp_path / "report"
    summary = build_report(files, out)
    assert "contamination" in summary["tables"]
    assert "model-a · private" in summary["entries"] and "model-a" in summary["entries"]
    got = {r["Model"]: r for r in rows(out, "contamination")}
    assert set(got) == {"model-a", "model-b"}  # model-c ran the public split only
    a, b = got["model-a"], got["model-b"]
    assert a["Public #"] == "10" and a["Private #"] == "10"
    assert float(a["Public pass^1 ci_low"]) == pytest.approx(0.72246, abs=1e-4)
    assert float(a["Private pass^1 ci_high"]) == pytest.approx(0.50984, abs=1e-4)
    assert float(a["private − public pass^1"]) == pytest.approx(-0.8)
    assert "contamination signal" in a["Signal"]
    assert float(b["private − public pass^1"]) == pytest.approx(-0.2) and b["Signal"] == WITHIN_NOISE
    assert "Public vs. private" in (out / "tables" / "report.md").read_text()
    # without a private file there is no such table
    assert "contamination" not in build_report(files[:1] + files[2:3], tmp_path / "r2")["tables"]
