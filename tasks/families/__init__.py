"""The executable families. Each module exposes FAMILY with `instances(book) -> list[Task]`."""
from . import a_etc_forecast, c_coi_hold, c_invoice_code, h_procore_erp_sync

FAMILIES = [a_etc_forecast.FAMILY, h_procore_erp_sync.FAMILY, c_invoice_code.FAMILY, c_coi_hold.FAMILY]
