"""Every read and write of the integration utility's sync line (hh2)."""
from .sync import get_mapping, get_sync_status, list_mappings, list_sync_log, run_sync, update_mapping

__all__ = ["get_mapping", "get_sync_status", "list_mappings", "list_sync_log", "run_sync", "update_mapping"]
