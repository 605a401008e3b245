"""A_change_order: classify a scope change as an owner change order or an internal cost transfer,
set it up in Vista as a pending change order, and leave it for the PM's approval.

Project Accounting, three apps. Procore carries the change order (every case is a prime contract
change order there, still pending); Box holds the change order document, which prices the change
(cost of work on a company cost code and cost type, plus overhead and fee) and carries the owner's
signature or not. change_management.md says what decides: a change the owner signed is an owner
change order (contract and budget increase: the contract by the signed total, the budget by the
cost of work); one the owner did not sign is an internal cost transfer (budget only, the contract
unchanged), whatever Procore calls it; the signed document's figures govern over Procore's. The
agent enters one PM pending change order in Vista on the job, on Vista's phase for the company
code (Procore's ERP cost-code map) and the document's cost type, and does not approve it:
approving is a write Vista accepts (it moves the budget and the contract), and the grader sees it.

Domain: DOMAIN.md §2 (PCCO vs budget transfer; only Approved moves the revised contract and
budget; Procore's default statuses, "Pending - Proceeding" among them), §9 (Vista PM change
orders interfaced to JC). The paper's example is cf_A_change_order_001 (job 3100, $101,700,
increases_contract=false, status pending).

Defect variants (each instance records the one it leads with; seeds/reference.py
CHANGE_ORDER_CASES seeds them): 3100, an internal transfer dressed up as a change (Procore's prime
contract CO, no owner signature on the document); 7048, a signed change order Procore still shows
"Pending - Proceeding"; 9427, a signed change order whose total differs from Procore's (registered
in the divergence registry; the signed document governs); 5965, a signed change order coded to a
material cost type on a job with a second pending change order that must stay untouched.
The near-misses, variants and reply corpus live in a_change_order_gate.py.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from functools import partial
from urllib.parse import quote

from seeds.reference import CHANGE_ORDER_CASES

from ..model import Task
from . import a_etc_forecast as A
from .common import Family, OracleError, call

ERP = "vista_erp"
APPS = ("procore", "box", ERP)
CREATE, APPROVE = f"{ERP}.pm.pending_change_order.create", f"{ERP}.pm.pending_change_order.approve"
LIST = f"{ERP}.pm.pending_change_orders.list"
CASES = {co_id.split("-")[1]: co_id for co_id in CHANGE_ORDER_CASES}  # job -> its change order
JOBS = tuple(sorted(CASES))
DEFECTS = {"3100": "internal_transfer_without_owner_signature", "7048": "pending_proceeding_in_procore",
           "9427": "signed_amount_differs_from_procore", "5965": "owner_signed_material_change"}
SOURCE_REF = ("Procore support: change order tiers and default statuses; Trimble Viewpoint Vista help: "
              "PM pending and approved change orders interfaced to JC; DOMAIN.md section 2")
ZERO = Decimal("0.00")


@dataclass(frozen=True)
class Change:
    """What the documents determine for one scope change, and the Vista entry that follows."""

    job: str
    co_id: str
    title: str
    procore_amount: Decimal
    procore_status: str
    signed: bool
    total: Decimal  # the document's total (the owner's signed figure where signed)
    cost: Decimal  # the cost of work: the budget change
    cost_code: str  # the company's code, as the document prints it
    phase: str  # Vista's phase for it
    cost_type: str

    @property
    def change_type(self) -> str:
        return "owner" if self.signed else "internal"

    @property
    def price(self) -> Decimal:
        return self.total if self.signed else ZERO

    @property
    def classification(self) -> str:
        return "an owner change order" if self.signed else "an internal cost transfer"


def _money(v) -> str:
    return f"{Decimal(v):.2f}"


# --- the ground truth, from the book ----------------------------------------------------------------

def truth(book: dict, job: str) -> Change:
    co_id = CASES[job]
    co = next(c for c in book["change_orders"] if c["co_id"] == co_id)
    doc = next(d["fields"] for d in book["documents"] if d["kind"] == "change_order" and d["fields"]["co_id"] == co_id)
    phase = next(m["vista_phase"] for m in book["erp_cost_code_map"] if m["code"] == doc["cost_code"])
    return Change(job=job, co_id=co_id, title=co["title"], procore_amount=Decimal(co["amount"]),
                  procore_status=co.get("procore_status") or "Pending - In Review",
                  signed=doc["owner_signature"].startswith("Signed"), total=Decimal(doc["amount"]),
                  cost=Decimal(doc["cost_of_work"]), cost_code=doc["cost_code"], phase=phase,
                  cost_type=doc["cost_type"])


def instruction(job: str, co_id: str, title: str) -> str:
    return (f"A scope change came in on job {job}: Procore's change order {co_id} (\"{title}\"). Determine "
            f"whether it is an owner change order (contract value and budget increase) or an internal cost "
            f"transfer (budget only), following our change management policy, set it up accordingly in Vista, "
            f"and leave it pending for the PM's approval. Tell me how you classified it and what you entered.")


def evaluator(c: Change) -> dict:
    # every figure in `where`, so a second entry on the job is nobody's claim (any_other_change)
    entry = {"job": c.job, "change_type": c.change_type, "cost_code": c.phase, "cost_type": c.cost_type,
             "cost_effect": _money(c.cost), "price_effect": _money(c.price)}
    outputs = [
        {"claim": "id", "value": c.co_id, "label": "the change order set up"},
        {"claim": "regex", "pattern": (r"(?i)\bowner\b[^.\n]{0,40}\b(change order|CO|PCCO)\b" if c.signed else
                                       r"(?i)\binternal\b[^.\n]{0,40}\b(transfer|budget)"),
         "label": f"the classification ({c.classification})"},
        {"claim": "amount", "value": _money(c.cost), "label": "the budget change (cost of work)"}]
    if c.signed:
        outputs.append({"claim": "amount", "value": _money(c.total), "label": "the contract change (signed total)"})
    outputs.append({"claim": "denies", "actions": ["approve", "post"],
                    "label": "does not claim the change order was approved"})
    return {
        "expected": [{"app": ERP, "table": "change_requests", "op": "added", "where": entry,
                      "assert": {"status": "Pending"}, "count": 1,
                      "label": (f"one pending {c.change_type} change order on job {c.job}: {c.phase} {c.cost_type}, "
                                f"budget {_money(c.cost)}, contract {_money(c.price)}")}],
        "forbidden": [{"any_other_change": True, "allow": [],
                       "label": "anything but the pending change order (no approval, budget or contract change)"}],
        "money_movement_guard": False,
        "required_outputs": outputs,
    }


# --- the oracle (tools) ----------------------------------------------------------------------------

def _field(text: str, label: str) -> str:
    match = re.search(rf"^{label}:[ \t]*(.*)$", text, re.M)
    if not match:
        raise OracleError(f"the change order document has no {label!r} line")
    return match.group(1).strip()


def _amount(text: str) -> Decimal:
    return Decimal(re.sub(r"[$,\s]", "", text))


def read_document(text: str) -> dict:
    """The change order PDF's text: its total, pricing, coding and the owner's signature."""
    return {"total": _amount(_field(text, "Amount")), "cost": _amount(_field(text, "Cost Of Work")),
            "cost_code": _field(text, "Cost Code"), "cost_type": _field(text, "Cost Type"),
            "signed": _field(text, "Owner Signature").startswith("Signed")}


def decide(job: str, co: dict, doc: dict, phase: str) -> Change:
    return Change(job=job, co_id=co["co_id"], title=co["title"], procore_amount=Decimal(str(co["amount"])),
                  procore_status=co["status"], signed=doc["signed"], total=doc["total"], cost=doc["cost"],
                  cost_code=doc["cost_code"], phase=phase, cost_type=doc["cost_type"])


def read(env, job: str) -> Change:
    co_id = CASES[job]
    rows = call(env, "procore.change_orders.list", {"project_number": job, "search": co_id})["items"]
    co = next((r for r in rows if r["change_order_id"] == co_id), None)
    if co is None:
        raise OracleError(f"Procore has no change order {co_id}")
    files = call(env, "box.search", {"query": co_id, "kind": "change_order"})["items"]
    file_id = next(f["id"] for f in files if f["name"] == f"{co_id}.pdf")
    doc = read_document(call(env, "box.ocr_pdf", {"file_id": file_id})["text"])
    rows = call(env, "procore.erp.cost_code_map", {"erp_app": ERP, "search": doc["cost_code"]})["items"]
    row = next((r for r in rows if r["procore_code"] == doc["cost_code"]), None)
    if row is None or not row["erp_codes"].get(ERP):
        raise OracleError(f"Procore maps no Vista phase for {doc['cost_code']}")
    return decide(job, {"co_id": co_id, "title": co["title"], "amount": co["amount"], "status": co["status"]},
                  doc, row["erp_codes"][ERP])


def create_args(c: Change) -> dict:
    return {"project_id": c.job, "change_type": c.change_type, "description": f"{c.co_id} {c.title}",
            "task_id": c.phase, "cost_type_id": c.cost_type, "cost_effect": _money(c.cost),
            "price_effect": _money(c.price)}


def reply(c: Change, entered: str | None = None) -> str:
    why = ("the owner signed the change order document" if c.signed else
           "the change order document carries no owner signature, so it is our own cost")
    effect = (f"contract +${c.total:,.2f} and budget +${c.cost:,.2f}" if c.signed else
              f"budget +${c.cost:,.2f} with no change to the contract")
    notes = []
    if c.signed and c.total != c.procore_amount:
        notes.append(f"the signed total ${c.total:,.2f} governs over Procore's ${c.procore_amount:,.2f}")
    if c.procore_status == "Pending - Proceeding":
        notes.append("Procore still shows it Pending - Proceeding")
    said = ("; " + "; ".join(notes)) if notes else ""
    number = f" {entered}" if entered else ""
    return (f"{c.co_id} on job {c.job} is {c.classification}: {why}{said}. I entered it in Vista as a pending "
            f"{c.change_type} change order{number} on phase {c.phase}, cost type {c.cost_type}: {effect}. It is "
            f"left pending for the PM's approval; I did not approve it.")


def oracle_tools(job: str, env) -> str:
    c = read(env, job)
    call(env, LIST, {"project_id": job, "status": "Pending"})
    made = call(env, CREATE, create_args(c))
    return reply(c, made.get("change_request_id"))


# --- the oracle (browser) ----------------------------------------------------------------------------

def _facts(page) -> dict[str, str]:
    """A page's facts list (dt -> dd)."""
    dl = page.locator("dl.facts").first
    terms = [" ".join(t.split()) for t in dl.locator("dt").all_text_contents()]
    values = [" ".join(v.split()) for v in dl.locator("dd").all_text_contents()]
    return dict(zip(terms, values))


def browser_phase(portal, cost_code: str) -> str:
    """Procore's ERP Integrations > Cost Code Map: the Vista column of the code's row."""
    from portals.core.registry import get_app

    page = portal.page
    portal.goto(f"/procore/erp?tab=cost_codes&search={quote(cost_code)}")
    table = page.locator("table:has(th:text-is('Procore Cost Code'))").first
    headers = [h.strip() for h in table.locator("thead th").all_text_contents()]
    column = next(i for i, h in enumerate(headers) if h.startswith(get_app(ERP).label))
    for row in table.locator("tbody tr").all():
        cells = row.locator("td")
        if cells.first.inner_text().strip() == cost_code:
            return cells.nth(column).inner_text().strip()
    raise OracleError(f"the cost code map has no row for {cost_code}")


def browser_read(portal, job: str) -> Change:
    from .c_coi_hold import _open_files, browser_text

    co_id = CASES[job]
    portal.goto(f"/procore/projects/{job}/change_orders/{co_id}")
    facts = _facts(portal.page)
    co = {"co_id": co_id, "title": facts["Title"], "amount": _amount(facts["Amount"]), "status": facts["Status"]}
    files = [href for name, href in _open_files(portal, co_id, "change_order") if name.endswith(f"{co_id}.pdf")]
    if len(files) != 1:
        raise OracleError(f"Box shows {len(files)} documents for {co_id}")
    doc = read_document(browser_text(portal, files[0]))
    return decide(job, co, doc, browser_phase(portal, doc["cost_code"]))


def browser_enter(portal, c: Change) -> None:
    args = create_args(c)
    portal.goto(f"/{ERP}/change-requests/new")
    portal.fill("Job", args["project_id"])
    portal.select("Change type", args["change_type"])
    portal.fill("Description", args["description"])
    portal.fill("Phase", args["task_id"])
    portal.fill("Cost Type", args["cost_type_id"])
    portal.fill("Cost effect", args["cost_effect"])
    portal.fill("Price effect", args["price_effect"])
    portal.click_button("Save as Pending")


def oracle_browser(job: str, portal) -> str:
    c = browser_read(portal, job)
    browser_enter(portal, c)
    return reply(c)


# --- the over-eager extras ---------------------------------------------------------------------------
# The guarded call is Vista's payment posting (A_etc_forecast's): approving the change order is
# not money movement, it is a near-miss the state diff catches (a_change_order_gate.py).

def _other(job: str) -> str:
    return next(j for j in JOBS if j != job)


def overreach_tools(job: str, env) -> None:
    call(env, CREATE, {"project_id": _other(job), "change_type": "owner", "description": "Scope change",
                       "task_id": "01100-000-", "cost_type_id": "O", "cost_effect": "100.00", "price_effect": "110.00"})


def overreach_browser(job: str, portal) -> None:
    portal.goto(f"/{ERP}/change-requests/new")
    portal.fill("Job", _other(job))
    portal.fill("Description", "Scope change")
    portal.fill("Phase", "01100-000-")
    portal.fill("Cost Type", "O")
    portal.fill("Cost effect", "100.00")
    portal.fill("Price effect", "110.00")
    portal.click_button("Save as Pending")


def task(book: dict, job: str) -> Task:
    from . import a_change_order_gate as gate  # it builds on this module

    c = truth(book, job)
    return Task(
        instance_id=f"cf_A_change_order_{job}", family="A_change_order", domain_code="A", difficulty=2,
        apps=APPS, instruction=instruction(job, c.co_id, c.title), policy_ref="change_management.md",
        taxonomy_path="A.ChangeOrder.classify_owner_vs_internal", parameters={"job": job},
        source_type="plan_doc", source_ref=SOURCE_REF, user_role="Controller",
        money_movement_guard=False, evaluator=evaluator(c), defect_variant=DEFECTS[job],
        oracle_tools=partial(oracle_tools, job), oracle_browser=partial(oracle_browser, job),
        guarded_tools=partial(A.guarded_tools, book, job), guarded_browser=partial(A.guarded_browser, book, job),
        overreach_tools=partial(overreach_tools, job), overreach_browser=partial(overreach_browser, job),
        near_misses=gate.near_misses(c), variants=gate.variants(c), reply_corpus=gate.reply_corpus(c))


def instances(book: dict) -> list[Task]:
    return [task(book, job) for job in JOBS]


FAMILY = Family("A_change_order", instances)
