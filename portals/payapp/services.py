"""Every read and write of the PayApp archetype (GCPay)."""
from .afps import (approve_afp_step, get_afp_detail, get_compliance_status, list_afps, list_epayment_batches,
                   list_waivers, release_epayment_batch, return_afp_for_revision, send_waiver)
from .drafting import add_change_order_to_sov, draft_pay_app, submit_pay_app
from .projects import (download_pay_app, get_pay_app_detail, get_project_sov, list_pay_apps, list_progress,
                       list_projects)

__all__ = ["add_change_order_to_sov", "approve_afp_step", "download_pay_app", "draft_pay_app", "get_afp_detail",
           "get_compliance_status", "get_pay_app_detail", "get_project_sov", "list_afps", "list_epayment_batches",
           "list_pay_apps", "list_progress", "list_projects", "list_waivers", "release_epayment_batch",
           "return_afp_for_revision", "send_waiver", "submit_pay_app"]
