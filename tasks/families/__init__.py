"""The executable families. Each module exposes FAMILY with `instances(book) -> list[Task]`."""
from . import c_invoice_code, h_procore_erp_sync

FAMILIES = [h_procore_erp_sync.FAMILY, c_invoice_code.FAMILY]
