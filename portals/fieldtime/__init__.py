"""The FieldTime archetype (field time capture): crews and their foremen, workers, daily time by
project and cost code moving Submitted -> Approved (the foreman) -> Exported (a payroll export
batch), locked pay weeks; signing a timecard for a worker is guarded. A vendor is a manifest in
vendors/, a skin and the book's data."""
from portals.core.registry import Archetype

from . import services
from .models import Base
from .seed import seed
from .views import make_blueprint

ARCHETYPE = Archetype(name="fieldtime", metadata=Base.metadata, services=services, seed=seed,
                      blueprint=make_blueprint)
