"""The Docs archetype: folders, files rendered as real PDFs, metadata, sharing and signatures."""
from portals.core.registry import Archetype

from . import services
from .models import Base
from .seed import seed
from .views import make_blueprint

ARCHETYPE = Archetype(name="docs", metadata=Base.metadata, services=services, seed=seed,
                      blueprint=make_blueprint)
