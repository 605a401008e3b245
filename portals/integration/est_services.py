"""Every read and write of the integration utility's estimating line (HCSS HeavyBid)."""
from .estimating import (export_budget, get_bid_summary, get_estimate, get_export, list_activities, list_biditems,
                         list_estimates, list_resources, submit_bid)

__all__ = ["export_budget", "get_bid_summary", "get_estimate", "get_export", "list_activities", "list_biditems",
           "list_estimates", "list_resources", "submit_bid"]
