"""Every read and write of the compliance archetype's lien line (Levelset's lien rights)."""
from .lien import (cancel_monthly_notice, draft_waiver_request, file_lien, get_job, get_job_deadlines, get_notice,
                   get_waiver, list_deadlines, list_jobs, list_notices, list_orders, list_waivers, order_notice,
                   request_waiver, sign_waiver)

__all__ = ["cancel_monthly_notice", "draft_waiver_request", "file_lien", "get_job", "get_job_deadlines", "get_notice",
           "get_waiver", "list_deadlines", "list_jobs", "list_notices", "list_orders", "list_waivers", "order_notice",
           "request_waiver", "sign_waiver"]
