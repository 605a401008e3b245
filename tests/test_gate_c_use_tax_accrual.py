"""C_use_tax_accrual's own checks beside the admission gate: each instance's job has untaxed June
material invoices the book registers, its twist is real (a taxed invoice to leave alone, a labor
line, a jobsite rate unlike the office's), Vista's bill lines show what the vendor charged, AvaTax
taxes the jobsite and not the office, and the policy names no invoice and no figure. The
near-misses, variants and reply corpus run in tests/test_gate.py."""
from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from portals.core.environment import Environment
from seeds import avalara
from seeds.book import load_book
from tasks.families import c_use_tax_accrual as U
from tasks.registry import all_tasks

TASKS = {t.instance_id: t for t in all_tasks() if t.family == "C_use_tax_accrual"}
POLICY = Path(__file__).parents[1] / "tasks" / "policies" / "sales_use_tax.md"
APPS = ["vista_erp", "avalara"]


def test_instances_and_their_twists():
    assert sorted(TASKS) == [f"cf_C_use_tax_accrual_{j}" for j in ("4418", "5174", "5497")]
    book = load_book()
    registered = {d["key"] for d in book["divergences"] if d["entity"] == "use_tax"}
    office = avalara.total_rate(avalara.OFFICE["city"], avalara.OFFICE["region"])
    for job, defect in U.JOBS.items():
        c = U.case(book, job)
        assert c.owed and {i.bill_id for i in c.owed} <= registered
        assert Decimal(c.rate) != office  # the office's rate would give another answer
        if defect == "taxed_invoices_left_alone":
            assert c.taxed
        if defect == "labor_line":
            assert any(i.labor != "0.00" for i in c.owed)
        task = TASKS[f"cf_C_use_tax_accrual_{job}"]
        assert task.money_movement_guard and task.policy_ref == POLICY.name
        assert c.total not in task.instruction and all(i.number not in task.instruction for i in c.invoices)


def test_the_policy_names_no_invoice_and_no_figure():
    text = POLICY.read_text()
    book = load_book()
    for job in U.JOBS:
        c = U.case(book, job)
        assert c.total not in text and all(i.number not in text and i.use_tax not in text for i in c.invoices)
    assert "P0000000" in text and "NT" in text and "2300" in text and "Uncommitted" in text


def test_vista_shows_what_the_vendor_charged_and_avatax_taxes_the_jobsite(episode):
    env = Environment(episode, APPS)
    book = load_book()
    c = U.case(book, "5174")
    planned = U.plan(c, env)
    assert {b["bill_number"] for b, _ in planned} == {i.number for i in c.owed}
    assert any("|NT|" in ln for _, lines in planned for ln in lines)
    for i in c.taxed:
        bill = env.call("vista_erp.ap.invoice.get", {"bill_id": i.bill_id})
        assert any(ln["memo"].startswith("Sales tax") for ln in bill["lines"])
    i = c.owed[0]
    lines = [f"{a}|{code}|{t}" for a, code, t in i.lines]
    at_site = env.call("avalara.transactions.create", {"doc_type": "SalesOrder", "code": "Q", "date": i.date,
                                                       "customer_vendor_code": i.vendor, "lines": lines,
                                                       "ship_to_line1": c.name, "ship_to_city": c.city,
                                                       "ship_to_region": c.state})
    at_office = env.call("avalara.transactions.create", {"doc_type": "SalesOrder", "code": "Q", "date": i.date,
                                                         "customer_vendor_code": i.vendor, "lines": lines})
    assert Decimal(at_site["total_tax"]) == Decimal(i.use_tax) != Decimal(at_office["total_tax"])
