"""The Payroll archetype (construction payroll): employees, crafts and pay classes, unions and
fringes, timecards by job, phase and class, weekly pay runs (timecard list -> job hours proofing
-> pre-check register), registers and the certified payroll report; finalizing, the direct-deposit
file and tax deposits are guarded. A vendor is a manifest in vendors/, a skin and the book's data."""
from portals.core.registry import Archetype

from . import services
from .models import Base
from .seed import seed
from .views import make_blueprint

ARCHETYPE = Archetype(name="payroll", metadata=Base.metadata, services=services, seed=seed,
                      blueprint=make_blueprint)
