"""Row lookups and the plain dicts GCPay's services answer with."""
from __future__ import annotations

from sqlalchemy import select

from portals.core.errors import NotFound
from portals.core.paging import check_paging  # noqa: F401  (callers import it from here)

from .models import Afp, ChangeOrder, PayApp, PayAppLine, Project, SovLine

def paged(items: list, page: int, per_page: int, total: int) -> dict:
    return {"items": items, "page": page, "per_page": per_page, "total": total,
            "pages": (total + per_page - 1) // per_page}


def get_project(session, code: str) -> Project:
    row = session.scalar(select(Project).where(Project.code == code.strip()))
    if row is None:
        raise NotFound(f"There is no project {code.strip()[:40]!r} in GCPay (projects look like GC-1234).",
                       "project_code")
    return row


def get_pay_app(session, pay_app_id: int) -> PayApp:
    row = session.get(PayApp, pay_app_id)
    if row is None:
        raise NotFound(f"There is no pay application {pay_app_id}.", "pay_app_id")
    return row


def get_afp(session, afp_id: int) -> Afp:
    row = session.get(Afp, afp_id)
    if row is None:
        raise NotFound(f"There is no application for payment {afp_id}.", "afp_id")
    return row


def project_dict(p: Project) -> dict:
    return {"project_code": p.code, "erp_job": p.erp_job, "name": p.name, "owner": p.owner, "city": p.city,
            "contract_number": p.contract_number, "contract_date": p.contract_date,
            "original_sum": p.original_sum, "retainage_pct": p.retainage_pct,
            "reduced_retainage_pct": p.reduced_retainage_pct, "reduce_at_pct": p.reduce_at_pct,
            "status": p.status}


def sov_lines(session, project_id: int) -> list[SovLine]:
    return list(session.scalars(select(SovLine).where(SovLine.project_id == project_id).order_by(SovLine.item_no)))


def sov_dict(line: SovLine) -> dict:
    return {"item_no": line.item_no, "description": line.description, "cost_code": line.cost_code,
            "scheduled_value": line.scheduled_value, "change_order": line.co_id}


def co_dict(co: ChangeOrder, on_sov: bool) -> dict:
    return {"co_id": co.co_id, "number": co.number, "title": co.title, "amount": co.amount, "status": co.status,
            "created_date": co.created_date, "approved_date": co.approved_date, "on_sov": on_sov}


SUMMARY = ("original_sum", "net_change_orders", "contract_sum", "completed_stored", "retainage_work",
           "retainage_stored", "retainage_total", "earned_less_retainage", "previous_certificates",
           "current_due", "balance_to_finish")
LINE_FIELDS = ("item_no", "description", "scheduled_value", "previous", "this_period", "stored",
               "completed_stored", "percent", "balance", "retainage")


def pay_app_summary(a: PayApp, code: str) -> dict:
    return {"pay_app_id": a.pay_app_id, "project_code": code, "number": a.number, "period_to": a.period_to,
            "status": a.status, "contract_sum": a.contract_sum, "completed_stored": a.completed_stored,
            "retainage_total": a.retainage_total, "current_due": a.current_due}


def pay_app_dict(session, a: PayApp, project: Project) -> dict:
    lines = session.scalars(select(PayAppLine).where(PayAppLine.pay_app_id == a.pay_app_id)
                            .order_by(PayAppLine.item_no))
    return {"pay_app_id": a.pay_app_id, "project_code": project.code, "project_name": project.name,
            "owner": project.owner, "contract_number": project.contract_number, "number": a.number,
            "period_to": a.period_to, "status": a.status, "retainage_work_pct": a.retainage_work_pct,
            "retainage_stored_pct": a.retainage_stored_pct, "updated_at": a.updated_at,
            "g702": {k: getattr(a, k) for k in SUMMARY},
            "g703": [{k: getattr(l, k) for k in LINE_FIELDS} for l in lines]}
