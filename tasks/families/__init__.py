"""The executable families. Each module exposes FAMILY with `instances(book) -> list[Task]`.

One family a line, in the order their private salts run (a family that reuses another's
private picks comes after it)."""
from . import a_change_order, a_etc_forecast, a_ressio_change_order, a_job_setup_from_estimate, a_reestimate_vista_budget, a_uncommitted_costs, b_aia_g702, b_draw_funding, b_progress_claim_boq
from . import c_coi_hold, c_eapp_intacct_bill, c_eapp_review, c_invoice_code, c_ressio_bill_vista, c_use_tax_accrual
from . import g_cash_tieout_plaid, g_sub_accrual, h_levelset_notice_holds, h_procore_erp_sync, p_certified_payroll, p_field_time_recon
from . import r_1099nec, t_positive_pay, t_vendor_bank_change

FAMILIES = [
    a_etc_forecast.FAMILY,
    h_procore_erp_sync.FAMILY,
    c_invoice_code.FAMILY,
    c_coi_hold.FAMILY,
    g_sub_accrual.FAMILY,
    b_aia_g702.FAMILY,
    a_change_order.FAMILY,
    p_certified_payroll.FAMILY,
    t_positive_pay.FAMILY,
    r_1099nec.FAMILY,
    c_eapp_review.FAMILY,
    a_uncommitted_costs.FAMILY,
    t_vendor_bank_change.FAMILY,
    b_progress_claim_boq.FAMILY,
    c_eapp_intacct_bill.FAMILY,  # after c_eapp_review: its private jobs are C_eapp_review's
    b_draw_funding.FAMILY,
    h_levelset_notice_holds.FAMILY,
    p_field_time_recon.FAMILY,  # after p_certified_payroll: it reads the weeks that family left
    c_use_tax_accrual.FAMILY,
    a_job_setup_from_estimate.FAMILY,
    g_cash_tieout_plaid.FAMILY,
    a_reestimate_vista_budget.FAMILY,
    c_ressio_bill_vista.FAMILY,
    a_ressio_change_order.FAMILY,
]
