"""The Compliance archetype, in several lines of business that share its shape (records a regulator
needs, checked and prepared here, filed only by a person):

- certified payroll (`line = "payroll"`, the default; LCPtracker): projects with their wage
  determination, employees, weekly payroll records, CPR validation, the WH-347, and the guarded
  certify-and-submit;
- 1099 reporting (`line = "tax"`; Track1099): payers, recipients as their W-9s give them, 1099-NEC
  forms from draft to the cart, TIN matching, and the guarded e-file, copy delivery and W-9 requests;
- AP payments (`line = "payments"`; Corpay): suppliers with their payment method and bank details,
  bank-detail change requests, payment files and payments, holds, and the guarded payment approval
  and bank-detail change;
- lien rights (`line = "lien"`; Levelset): jobs with their furnishing dates, the deadlines the state's
  rules give them, preliminary notices received, lien waivers and document orders, and the guarded
  waiver requests and signatures, notice orders and lien filings.
- sales and use tax (`line = "salestax"`; Avalara AvaTax): the company and its nexus, rates by
  address, sales and purchase (consumer use) transactions from uncommitted to committed or voided
  with their tax by jurisdiction, monthly returns, and the guarded commit and return approval.

A vendor's manifest names its line; each line has its own tables, services, seed and pages.
"""
from portals.core.registry import Archetype

from . import lien_services, pay_services, salestax_services, services, tax_services
from .lien_models import Base as LienBase
from .lien_seed import seed_lien
from .lien_views import make_lien_blueprint
from .models import Base
from .pay_models import Base as PayBase
from .pay_seed import seed_pay
from .pay_views import make_pay_blueprint
from .salestax_models import Base as SalesTaxBase
from .salestax_seed import seed_salestax
from .salestax_views import make_salestax_blueprint
from .seed import seed
from .tax_models import Base as TaxBase
from .tax_seed import seed_tax
from .tax_views import make_tax_blueprint
from .views import make_blueprint

ARCHETYPE = Archetype(name="compliance", metadata=Base.metadata, services=services, seed=seed,
                      blueprint=make_blueprint)
ARCHETYPES = {"payroll": ARCHETYPE,
              "tax": Archetype(name="compliance", metadata=TaxBase.metadata, services=tax_services, seed=seed_tax,
                               blueprint=make_tax_blueprint),
              "payments": Archetype(name="compliance", metadata=PayBase.metadata, services=pay_services, seed=seed_pay,
                                    blueprint=make_pay_blueprint),
              "lien": Archetype(name="compliance", metadata=LienBase.metadata, services=lien_services, seed=seed_lien,
                                blueprint=make_lien_blueprint),
              "salestax": Archetype(name="compliance", metadata=SalesTaxBase.metadata, services=salestax_services,
                                    seed=seed_salestax, blueprint=make_salestax_blueprint)}
