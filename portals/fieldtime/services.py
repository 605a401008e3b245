"""Every read and write of the FieldTime archetype."""
from .actions import (approve_timecard, create_payroll_export, create_time_entry, lock_time_period, sign_timecard,
                      update_time_entry)
from .records import (export_workshifts, get_employee, get_project, get_time_entry, get_weekly_timecard,
                      list_cost_codes, list_employees, list_payroll_exports, list_projects, list_time_entries)

__all__ = ["approve_timecard", "create_payroll_export", "create_time_entry", "export_workshifts", "get_employee",
           "get_project", "get_time_entry", "get_weekly_timecard", "list_cost_codes", "list_employees",
           "list_payroll_exports", "list_projects", "list_time_entries", "lock_time_period", "sign_timecard",
           "update_time_entry"]
