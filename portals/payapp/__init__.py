"""The PayApp archetype: projects with schedules of values, owner pay applications (G702/G703),
subcontractor AFPs with approval routes, lien waivers, compliance and e-payments."""
from portals.core.registry import Archetype

from . import services
from .models import Base
from .seed import seed
from .views import make_blueprint

ARCHETYPE = Archetype(name="payapp", metadata=Base.metadata, services=services, seed=seed,
                      blueprint=make_blueprint)
