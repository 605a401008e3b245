"""The ERP archetype: one set of tables and services behind Vista, Sage Intacct and other ERPs."""
from portals.core.registry import Archetype

from . import services
from .models import Base
from .seed import seed
from .views import make_blueprint

ARCHETYPE = Archetype(name="erp", metadata=Base.metadata, services=services, seed=seed,
                      blueprint=make_blueprint)
