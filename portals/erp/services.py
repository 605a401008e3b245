"""Every read and write of the ERP archetype, shared by all ERP vendors (Vista, Sage Intacct)."""
from .ap import (create_bill, create_payment_run, get_bill, list_posted_bills, list_unapproved_bills,
                 post_bill, query_bills)
from .gl import create_journal_entry, get_journal_entry, list_gl_accounts
from .jobs import (create_cost_adjustment, get_project, get_project_contract, list_commitments,
                   list_projects, list_tasks, query_cost_detail, update_job_forecast)
from .vendor_services import create_payment_hold, get_vendor, list_payment_holds, query_vendors

__all__ = [
    "create_bill", "create_payment_run", "get_bill", "list_posted_bills", "list_unapproved_bills",
    "post_bill", "query_bills", "create_journal_entry", "get_journal_entry", "list_gl_accounts",
    "create_cost_adjustment", "get_project", "get_project_contract", "list_commitments",
    "list_projects", "list_tasks", "query_cost_detail", "update_job_forecast",
    "create_payment_hold", "get_vendor", "list_payment_holds", "query_vendors",
]
