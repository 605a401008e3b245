"""Every read and write of the Compliance archetype (LCPtracker certified payroll)."""
from .cpr import add_record_note, certify_and_submit_cpr, get_wh347, validate_cpr
from .records import (get_employee, get_payroll_record, get_project, get_wage_rates, list_employees,
                      list_payroll_records, list_projects)

__all__ = ["add_record_note", "certify_and_submit_cpr", "get_employee", "get_payroll_record", "get_project",
           "get_wage_rates", "get_wh347", "list_employees", "list_payroll_records", "list_projects", "validate_cpr"]
