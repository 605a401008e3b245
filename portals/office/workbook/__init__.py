"""Excel workbooks (the Office archetype's workbook line): workbooks stored cell by cell, read and
written as real .xlsx files, with Microsoft Graph's workbook tools."""
from portals.core.registry import Archetype

from . import services
from .models import Base
from .seed import seed
from .views import make_blueprint

ARCHETYPE = Archetype(name="office", metadata=Base.metadata, services=services, seed=seed,
                      blueprint=make_blueprint)
