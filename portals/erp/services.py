"""Every read and write of the ERP archetype, shared by all ERP vendors (Vista, Sage Intacct)."""
from .ap import (create_bill, create_payment_run, get_bill, list_posted_bills, list_unapproved_bills,
                 post_bill, query_bills)
from .gl import create_journal_entry, get_journal_entry, list_gl_accounts, post_journal_entry
from .jobs import (create_cost_adjustment, get_project, get_project_contract, list_commitments,
                   list_projects, list_tasks, query_cost_detail, update_job_forecast)
from .job_setup import add_budget_line, add_contract_item, create_project
from .vendor_services import create_payment_hold, get_vendor, list_payment_holds, query_vendors
# Records some products keep beyond the shared core; each manifest offers the ones its product has.
from .batches import get_batch, list_batches, post_batch
from .change_requests import approve_change_request, create_change_request, get_change_request, list_change_requests
from .cost_types import list_dimensions, list_standard_cost_types
from .entities import list_entities
from .estimates import get_project_estimate, query_project_estimates
from .firms import get_firm, list_firms
from .payments import create_payment, get_payment, query_payments
from .progress_billing import get_progress_bill, list_progress_bills
from .purchase_orders import get_purchase_order, get_subcontract, list_purchase_orders, list_subcontracts
from .retainage import get_retainage, query_retainage, release_retainage
from .sl_change_orders import create_sl_change_order, list_sl_change_orders

__all__ = [
    "create_bill", "create_payment_run", "get_bill", "list_posted_bills", "list_unapproved_bills",
    "post_bill", "query_bills", "create_journal_entry", "get_journal_entry", "list_gl_accounts", "post_journal_entry",
    "create_cost_adjustment", "get_project", "get_project_contract", "list_commitments",
    "list_projects", "list_tasks", "query_cost_detail", "update_job_forecast",
    "create_payment_hold", "get_vendor", "list_payment_holds", "query_vendors",
    "get_batch", "list_batches", "post_batch", "approve_change_request", "create_change_request", "get_change_request",
    "list_change_requests", "list_dimensions", "list_standard_cost_types", "list_entities",
    "get_project_estimate", "query_project_estimates", "get_firm", "list_firms", "create_payment",
    "get_payment", "query_payments", "get_progress_bill", "list_progress_bills", "get_purchase_order",
    "get_subcontract", "list_purchase_orders", "list_subcontracts", "get_retainage", "query_retainage",
    "release_retainage", "create_sl_change_order", "list_sl_change_orders",
    "add_budget_line", "add_contract_item", "create_project",
]
