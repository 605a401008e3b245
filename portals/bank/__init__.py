"""The Bank archetype (treasury portals): accounts and balances, Information Reporting with previous-
day and intraday transactions and BAI2 files, wire and ACH payments under dual control, Positive
Pay (issue files, the day's check exceptions, Pay / Return decisions) and user entitlements.
A bank is a manifest (portals/bank/vendors/<bank>.toml: its words, its accounts, its cutoff), a skin
and CSS; approving or releasing a payment, submitting decisions and changing entitlements are guarded.
Plaid is the archetype's bank-data line (a manifest's `line = "data"`): the same bank's accounts
and transactions as an API and a small dashboard sees them."""
from portals.core.registry import Archetype

from . import plaid_services, services
from .models import Base
from .plaid_models import Base as PlaidBase
from .plaid_seed import seed_plaid
from .plaid_views import make_plaid_blueprint
from .seed import seed
from .views import make_blueprint

ARCHETYPE = Archetype(name="bank", metadata=Base.metadata, services=services, seed=seed,
                      blueprint=make_blueprint)
# the bank-data line (`line = "data"`; Plaid): linked Items, accounts and transactions read
# through an API and a small dashboard, no treasury portal
ARCHETYPES = {"data": Archetype(name="bank", metadata=PlaidBase.metadata, services=plaid_services, seed=seed_plaid,
                                blueprint=make_plaid_blueprint)}
