"""The PM archetype: projects, commitments, subcontractor invoices, budget and the ERP boundary."""
from portals.core.registry import Archetype

from . import services
from .models import Base
from .seed import seed
from .views import make_blueprint

ARCHETYPE = Archetype(name="pm", metadata=Base.metadata, services=services, seed=seed,
                      blueprint=make_blueprint)
