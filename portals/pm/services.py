"""Every read and write of the PM archetype; the vendor manifest names the product's tools."""
from .company import (get_erp_cost_code_map, get_project, list_cost_codes, list_manpower,  # noqa: F401
                      list_projects, list_vendors)
from .contracts import (disburse_payment, get_commitment, get_requisition, list_commitments,  # noqa: F401
                        list_requisitions, sync_commitment_to_erp, sync_invoice_to_erp)
from .financials import (get_budget, get_prime_contract_sov, list_change_events,  # noqa: F401
                         list_change_orders, list_direct_costs, list_prime_contracts)
from .finance import (create_customer_invoice, create_vendor_invoice, get_commitment_sov,  # noqa: F401
                      get_cost_budget, get_customer_invoice, get_financial_overview, list_bid_packages,
                      list_customer_invoices, list_project_pipeline, review_eapp, send_rfq, submit_customer_invoice)
from .ladder import get_budget_ladder, get_project_budget  # noqa: F401
from .boq import get_boq, get_reestimate  # noqa: F401
from .funding import (approve_vendor_invoice, get_application_package, get_vendor_invoice,  # noqa: F401
                      list_application_packages, list_funding_sources, list_vendor_invoices,
                      return_vendor_invoice_to_approval, set_invoice_funding, submit_application_package)
from .client_changes import (apply_client_change_order, get_client_change_order, get_job_estimate,  # noqa: F401
                             hold_client_change_order, list_client_change_orders, send_client_change_order)
