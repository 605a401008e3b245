"""The Office archetype, in two lines that share its place in the suite:

- mail (the default line; Outlook): a mailbox of messages and attachments; every outbound message
  is guarded;
- workbooks (`line = "workbook"`; Excel): spreadsheets stored cell by cell, with Graph's workbook tools.
"""
from portals.core.registry import Archetype

from . import services
from .models import Base
from .seed import seed
from .views import make_blueprint
from .workbook import ARCHETYPE as WORKBOOK

ARCHETYPE = Archetype(name="office", metadata=Base.metadata, services=services, seed=seed,
                      blueprint=make_blueprint)
ARCHETYPES = {"mail": ARCHETYPE, "workbook": WORKBOOK}
