"""The Office mail archetype: a mailbox of messages and attachments; every outbound message is guarded."""
from portals.core.registry import Archetype

from . import services
from .models import Base
from .seed import seed
from .views import make_blueprint

ARCHETYPE = Archetype(name="office", metadata=Base.metadata, services=services, seed=seed,
                      blueprint=make_blueprint)
