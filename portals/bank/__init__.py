"""The Bank archetype (treasury portals): accounts and balances, Information Reporting with previous-
day and intraday transactions and BAI2 files, wire and ACH payments under dual control, Positive
Pay (issue files, the day's check exceptions, Pay / Return decisions) and user entitlements.
A bank is a manifest (portals/bank/vendors/<bank>.toml: its words, its accounts, its cutoff), a skin
and CSS; approving or releasing a payment, submitting decisions and changing entitlements are guarded."""
from portals.core.registry import Archetype

from . import services
from .models import Base
from .seed import seed
from .views import make_blueprint

ARCHETYPE = Archetype(name="bank", metadata=Base.metadata, services=services, seed=seed,
                      blueprint=make_blueprint)
