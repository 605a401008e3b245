"""The project managers' cost-to-complete workbooks (Excel, in each PM's OneDrive).

A PM who keeps the forecast in Excel updates it at month end, line by line, before (and apart
from) Procore: the June sheet is this month's forecast, the May sheet last month's, and Procore's
budget still carries May's figures (its forecast to complete is the May column here). A log table
lists the lines the PM revised this month. The figures are the book's, so the evaluator and the
workbook agree by construction.
"""
from __future__ import annotations

import random
from collections import defaultdict
from decimal import Decimal

from .util import money

JOBS = ("2780", "4418", "5497", "7951")  # jobs whose PMs forecast in Excel (no other family uses them)


def build_workbooks(rng: random.Random, jobs: list[dict], budget: list[dict], job_cost: list[dict],
                    cost_codes: list[dict]) -> list[dict]:
    by_job = {j["job"]: j for j in jobs}
    desc = {c["code"]: c["description"] for c in cost_codes}
    spent: dict = defaultdict(Decimal)
    for t in job_cost:
        spent[(t["job"], t["cost_code"], t["cost_type"])] += Decimal(t["amount"])
    out = []
    for job in JOBS:
        lines = sorted((b for b in budget if b["job"] == job), key=lambda b: (b["cost_code"], b["cost_type"]))
        if not lines:  # another seed's book may leave the job without a budget: no forecast to keep
            continue
        rows = []
        for b in lines:
            may = Decimal(b["forecast_to_complete"])
            june = may
            if rng.random() < 0.45:  # the lines the PM revised this month
                june = (may * Decimal(str(rng.uniform(0.88, 1.14)))).quantize(Decimal(1))
            rows.append({"cost_code": b["cost_code"], "cost_type": b["cost_type"], "description": desc[b["cost_code"]],
                         "revised_budget": money(Decimal(b["original_budget"]) + Decimal(b["approved_changes"])),
                         "cost_to_date": money(spent[(job, b["cost_code"], b["cost_type"])]),
                         "forecast_may": money(may), "forecast_june": money(june)})
        if all(r["forecast_may"] == r["forecast_june"] for r in rows):  # a month with no revision is no task
            rows[0]["forecast_june"] = money(Decimal(rows[0]["forecast_may"]) + 2500)
        info = by_job[job]
        out.append({"job": job, "name": f"{job} Cost to Complete.xlsx", "pm_name": info["pm_name"],
                    "pm_email": info["pm_email"], "project": info["name"], "modified_at": "2026-06-29T21:40:00Z",
                    "lines": rows})
    return out
