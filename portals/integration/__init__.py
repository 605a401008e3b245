"""The Integration/Estimating utility, beside the nine archetypes, in two lines:

- estimating (`line = "estimating"`; HCSS HeavyBid): estimates with their biditems, activities
  and resources, the bid summary, the export to accounting (cost budget and revenue items, as an
  .xlsx), and the guarded bid submission;
- sync (`line = "sync"`; hh2): the sync map between the field systems and the ERP (jobs, cost
  codes, cost types, employees, vendors), the sync log with its errors and queue, mapping repair,
  and the guarded sync run that writes into the ERP.
"""
from portals.core.registry import Archetype

from . import est_services, sync_services
from .est_models import Base as EstBase
from .est_seed import seed_estimating
from .est_views import make_estimating_blueprint
from .sync_models import Base as SyncBase
from .sync_seed import seed_sync
from .sync_views import make_sync_blueprint

ARCHETYPE = Archetype(name="integration", metadata=SyncBase.metadata, services=sync_services, seed=seed_sync,
                      blueprint=make_sync_blueprint)
ARCHETYPES = {"sync": ARCHETYPE,
              "estimating": Archetype(name="integration", metadata=EstBase.metadata, services=est_services,
                                      seed=seed_estimating, blueprint=make_estimating_blueprint)}
