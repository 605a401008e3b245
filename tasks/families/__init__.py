"""The executable families. Each module exposes FAMILY with `instances(book) -> list[Task]`."""
from . import (a_change_order, a_uncommitted_costs, a_etc_forecast, b_aia_g702, c_coi_hold, c_eapp_review, c_invoice_code,
               g_sub_accrual, h_procore_erp_sync, p_certified_payroll, t_positive_pay, t_vendor_bank_change, r_1099nec,
               g_cash_tieout_plaid)

FAMILIES = [a_etc_forecast.FAMILY, h_procore_erp_sync.FAMILY, c_invoice_code.FAMILY, c_coi_hold.FAMILY,
            g_sub_accrual.FAMILY, b_aia_g702.FAMILY, a_change_order.FAMILY, p_certified_payroll.FAMILY,
            t_positive_pay.FAMILY, r_1099nec.FAMILY, c_eapp_review.FAMILY,
            a_uncommitted_costs.FAMILY, t_vendor_bank_change.FAMILY,
            g_cash_tieout_plaid.FAMILY]
