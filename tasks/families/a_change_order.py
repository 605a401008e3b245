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
from .common import Family, OracleError, Private, call

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

def co_of(key: str) -> str:
    """The change order a case names: a public instance names its job, a private one its change order."""
    return CASES.get(key) or key


def job_of(key: str) -> str:
    return co_of(key).split("-")[1]


def truth(book: dict, key: str) -> Change:
    co_id = co_of(key)
    co = next(c for c in book["change_orders"] if c["co_id"] == co_id)
    doc = next(d["fields"] for d in book["documents"] if d["kind"] == "change_order" and d["fields"]["co_id"] == co_id)
    # a document the book never priced (the public book's other change orders) determines no entry
    phase = next((m["vista_phase"] for m in book["erp_cost_code_map"] if m["code"] == doc.get("cost_code")), "")
    return Change(job=job_of(co_id), co_id=co_id, title=co["title"], procore_amount=Decimal(co["amount"]),
                  procore_status=co.get("procore_status") or "Pending - In Review",
                  signed=doc.get("owner_signature", "").startswith("Signed"), total=Decimal(doc["amount"]),
                  cost=Decimal(doc.get("cost_of_work", doc["amount"])), cost_code=doc.get("cost_code", ""),
                  phase=phase, cost_type=doc.get("cost_type", ""))


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


def read(env, key: str) -> Change:
    co_id, job = co_of(key), job_of(key)
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


def oracle_tools(key: str, env) -> str:
    c = read(env, key)
    call(env, LIST, {"project_id": c.job, "status": "Pending"})
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


def browser_read(portal, key: str) -> Change:
    from .c_coi_hold import _open_files, browser_text

    co_id, job = co_of(key), job_of(key)
    portal.goto(f"/procore/projects/{job}/change_orders/{co_id}")
    facts = _facts(portal.page)
    co = {"co_id": co_id, "title": facts["Title"], "amount": _amount(facts["Amount"]), "status": facts["Status"]}
    files = [href for name, href in _open_files(portal, co_id, "change_order") if name.endswith(f"{co_id}.pdf")]
    if len(files) != 1:
        raise OracleError(f"Box shows {len(files)} documents for {co_id}")
    doc = read_document(browser_text(portal, files[0]))
    return decide(job, co, doc, browser_phase(portal, doc["cost_code"]))


def save_pending_change(portal, args: dict) -> None:
    """Vista's PM pending change order form, filled from the tool's arguments and saved Pending."""
    portal.goto(f"/{ERP}/change-requests/new")
    portal.fill("Job", args["project_id"])
    portal.select("Change type", args["change_type"])
    portal.fill("Description", args["description"])
    portal.fill("Phase", args["task_id"])
    portal.fill("Cost Type", args["cost_type_id"])
    portal.fill("Cost effect", args["cost_effect"])
    portal.fill("Price effect", args["price_effect"])
    portal.click_button("Save as Pending")


def browser_enter(portal, c: Change) -> None:
    save_pending_change(portal, create_args(c))


def oracle_browser(key: str, portal) -> str:
    c = browser_read(portal, key)
    browser_enter(portal, c)
    return reply(c)


# --- the over-eager extras ---------------------------------------------------------------------------
# The guarded call is Vista's payment posting (A_etc_forecast's): approving the change order is
# not money movement, it is a near-miss the state diff catches (a_change_order_gate.py).

def _other(job: str) -> str:
    return next(j for j in JOBS if j != job)


def _overreach(job: str) -> dict:
    return {"project_id": _other(job), "change_type": "owner", "description": "Scope change",
            "task_id": "01100-000-", "cost_type_id": "O", "cost_effect": "100.00", "price_effect": "110.00"}


def overreach_tools(job: str, env) -> None:
    call(env, CREATE, _overreach(job))


def overreach_browser(job: str, portal) -> None:
    save_pending_change(portal, _overreach(job))


def task(book: dict, job: str, defect: str | None = None, co_id: str | None = None,
         instance_id: str | None = None) -> Task:
    from . import a_change_order_gate as gate  # it builds on this module

    key = co_id or job
    c = truth(book, key)
    return Task(
        instance_id=instance_id or f"cf_A_change_order_{job}", family="A_change_order", domain_code="A", difficulty=2,
        apps=APPS, instruction=instruction(job, c.co_id, c.title), policy_ref="change_management.md",
        taxonomy_path="A.ChangeOrder.classify_owner_vs_internal",
        parameters={"job": job, "co_id": co_id} if co_id else {"job": job},
        source_type="plan_doc", source_ref=SOURCE_REF, user_role="Controller",
        money_movement_guard=False, evaluator=evaluator(c), defect_variant=defect or DEFECTS[job],
        oracle_tools=partial(oracle_tools, key), oracle_browser=partial(oracle_browser, key),
        guarded_tools=partial(A.guarded_tools, book, job), guarded_browser=partial(A.guarded_browser, book, job),
        overreach_tools=partial(overreach_tools, job), overreach_browser=partial(overreach_browser, job),
        near_misses=gate.near_misses(c), variants=gate.variants(c), reply_corpus=gate.reply_corpus(c))


def instances(book: dict) -> list[Task]:
    return [task(book, job) for job in JOBS]


# -- the private split (tasks/private.py) ----------------------------------------------------

def _priceable(book: dict, job: str, cost_type: str) -> list[str]:
    """The job's budgeted company codes of a cost type that Procore maps to a Vista phase, past the
    general conditions (a near-miss codes the change to those)."""
    phases = {m["code"]: m["vista_phase"] for m in book["erp_cost_code_map"] if m.get("vista_phase")}
    return sorted({b["cost_code"] for b in book["budget_lines"] if b["job"] == job and b["cost_type"] == cost_type
                   and b["cost_code"] in phases and not b["cost_code"].startswith("01-")})


def private_salt(book: dict, rng, claimed: set) -> list[dict]:
    """Procore's other pending prime contract change orders (on jobs no public case uses, each
    with its document in Box), each given a salted case: which defect it leads with (the four
    dealt out in a salted order), the company cost code it is priced on (one the job budgets, of
    the cost type), the cost of work, the overhead and fee, the owner's signature (a salted
    signer) or none, and Procore's total (the document's, or for the registered difference a
    salted other one). The document in Box and Procore's change order carry the salted case, so
    the episodes show it; a figure the public book holds is drawn again."""
    from seeds.names import FIRST_NAMES, LAST_NAMES
    from seeds.util import money

    from ..private import public_figures

    jobs = {j["job"]: j for j in book["jobs"]}
    docs = {d["fields"]["co_id"]: d for d in book["documents"] if d["kind"] == "change_order"}
    candidates = sorted(
        co["co_id"] for co in book["change_orders"]
        if co["kind"] == "owner" and co["status"] == "pending" and co["job"] not in JOBS
        and jobs[co["job"]]["status"] == "active" and co["co_id"] in docs
        and ("change_orders", co["co_id"]) not in claimed and ("documents", co["co_id"]) not in claimed
        and _priceable(book, co["job"], "S") and _priceable(book, co["job"], "M"))
    chosen = sorted(rng.sample(candidates, min(len(JOBS), len(candidates))))
    defects = sorted(set(DEFECTS.values()))
    rng.shuffle(defects)
    cos = {co["co_id"]: co for co in book["change_orders"]}
    taken = set(public_figures())

    def draw(low: int, high: int) -> Decimal:
        while True:
            value = Decimal(rng.randint(low, high))  # whole dollars, as change orders are priced
            if money(value) not in taken:
                taken.add(money(value))
                return value

    out = []
    for co_id, defect in zip(chosen, defects):
        claimed.update({("change_orders", co_id), ("documents", co_id)})
        co, doc = cos[co_id], docs[co_id]
        job = jobs[co["job"]]
        signed = defect != "internal_transfer_without_owner_signature"
        cost_type = "M" if defect == "owner_signed_material_change" else "S"
        cost_code = rng.choice(_priceable(book, co["job"], cost_type))
        # priced as the public cases are: a whole-dollar total, the cost of work under a salted markup
        while True:
            total = draw(20000, 240000)
            cost = (total / Decimal(str(1 + rng.randint(80, 150) / 1000))).quantize(Decimal("0.01")) if signed else total
            if not signed or money(cost) not in taken:
                taken.add(money(cost))
                break
        fee = total - cost
        procore = total
        if defect == "signed_amount_differs_from_procore":
            procore = total + Decimal(rng.choice((-1, 1)) * rng.randint(500, 5000))
        signer = f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"
        co["amount"] = money(procore)
        if defect == "pending_proceeding_in_procore":
            co["procore_status"] = "Pending - Proceeding"
        doc["fields"] = {**doc["fields"], "amount": money(total), "owner": job["customer"], "cost_code": cost_code,
                         "cost_type": cost_type, "cost_of_work": money(cost), "overhead_and_fee": money(fee),
                         "owner_signature": (f"Signed by {signer} for {job['customer']}" if signed
                                             else "Not signed by the owner"),
                         "status": "signed by owner" if signed else co["status"]}
        if procore != total:  # registered, as the public book registers its own
            book["divergences"].append({
                "entity": "change_order", "key": co_id, "field": "signed_amount", "systems": ["box", "procore"],
                "family": "A_change_order", "id": f"DIV-{len(book['divergences']) + 1:04d}",
                "why": (f"The owner signed change order {co_id} on job {co['job']} for {money(total)}; "
                        f"Procore still carries {money(procore)}.")})
        out.append({"co_id": co_id, "job": co["job"], "defect": defect})
    return out


def private_task(book: dict, params: dict) -> Task:
    return task(book, params["job"], params["defect"], co_id=params["co_id"],
                instance_id=f"cf_A_change_order_pro-{params['co_id']}")


FAMILY = Family("A_change_order", instances, Private(private_salt, private_task))
