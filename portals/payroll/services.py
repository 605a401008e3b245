"""Every read and write of the Payroll archetype."""
from .payrun import (create_direct_deposit_file, create_timecard, finalize_payroll, get_certified_payroll,
                     get_pre_check_register, get_union_fringe_register, get_workers_comp_register, import_timecards,
                     make_tax_deposit, proof_job_hours, run_pre_check_register, update_timecard)
from .records import (get_employee, get_job, get_pay_run, get_timecard, list_crafts, list_employees, list_jobs,
                      list_pay_runs, list_tax_deposits, list_timecards, list_unions)
from .statements import list_pay_statements, update_pay_distribution

__all__ = ["create_direct_deposit_file", "create_timecard", "finalize_payroll", "get_certified_payroll",
           "get_employee", "get_job", "get_pay_run", "get_pre_check_register", "get_timecard",
           "get_union_fringe_register", "get_workers_comp_register", "import_timecards", "list_crafts",
           "list_employees", "list_jobs", "list_pay_runs", "list_pay_statements", "list_tax_deposits", "list_timecards",
           "list_unions", "make_tax_deposit", "proof_job_hours", "run_pre_check_register", "update_pay_distribution",
           "update_timecard"]
