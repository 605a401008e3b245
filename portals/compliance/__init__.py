"""The Compliance archetype (certified payroll): projects with their wage determination, employees,
weekly payroll records, CPR validation, the WH-347, and the guarded certify-and-submit."""
from portals.core.registry import Archetype

from . import services
from .models import Base
from .seed import seed
from .views import make_blueprint

ARCHETYPE = Archetype(name="compliance", metadata=Base.metadata, services=services, seed=seed,
                      blueprint=make_blueprint)
