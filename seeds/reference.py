"""Fixed reference data: identifiers the paper names, the cost-code book, GL accounts, trades."""
from __future__ import annotations

from decimal import Decimal

META = {
    "company_id": "companyA",
    "company_name": "Company A Builders, Inc.",
    "email_domain": "companyA.com",
    "clock": "2026-06-30T17:00:00Z",
    "version": 1,
    # The ERP the PM platform's ERP integration is connected to: the Directory's origin ids are
    # its vendor ids, and a commitment line shows that ERP's code for its cost code.
    "pm_erp_app": "sage_intacct",
}

REQUIRED_ACTIVE_JOBS = ["1042", "1990", "2014", "2041", "2200", "3100", "3412", "4012", "9140"]
SYNC_JOBS = ["1042", "2014", "2041", "2200", "3100", "4012"]          # H_procore_erp_sync
ACCRUAL_JOBS = ["1042", "2014", "2200", "3100", "3412", "4012"]       # G_sub_accrual
ACCRUAL_THRESHOLD = Decimal("2500.00")  # month_end_close_policy.md: smaller accruals are not booked
BILLING_JOBS = ["2014", "2041", "2780", "3394", "3412", "4012"]       # B_aia_g702
# B_aia_g702: owner contracts that reduce retainage to 5% at 50% complete (GCPay draws the
# clause for others by chance; these two reach the mark on June's application, one only if
# stored materials were counted)
RETAINAGE_REDUCTION_JOBS = ["2780", "3412"]
PUBLIC_JOBS = ["1042", "1990", "2014", "2041", "2200", "3100"]        # P_certified_payroll
N_ACTIVE_JOBS = 31
N_CLOSED_JOBS = 8
N_VENDORS = 320

EXPIRED_COI_VENDORS = ["V1000", "V1002", "V1003", "V1006", "V1007"]  # C_coi_hold
COI_DBA_VENDOR = "V1003"      # C_coi_hold: its certificates name the insured by its DBA
RENEWED_COI_VENDOR = "V1005"  # C_coi_hold: the ERP's date has lapsed, Box holds the renewal
JSM_VENDOR = "V1001"
WALSH_VENDOR = "V1042"
# the paper's shared commitment: every PM platform shows it as a view of the same book record
SHARED_COMMITMENT = "SC-1042-0"
JSM_INVOICE = "JSM-88421"
JSM_INVOICE_TOTAL = "14350.00"
JSM_COMMITMENT = "9140-75"
ETC_1042_TARGET = "3706560.00"                                         # A_etc_forecast example
CO_3100_AMOUNT = "101700.00"                                           # cf_A_change_order_001
# A_change_order: the scope changes to set up in the ERP, one per job. Each signed change order
# PDF in Box prices the change as the cost of work (coded to a company cost code and cost type)
# plus overhead and fee; the owner's signature is on it or it is not. `signed_amount` is the
# total the owner signed where it differs from Procore's; `procore_status` overrides Procore's
# usual "Pending - In Review".
CHANGE_ORDER_CASES = {
    "CO-3100-005": {"cost_code": "32-130", "cost_type": "S", "cost_of_work": "101700.00", "fee": "0.00",
                    "owner_signed_by": None},
    "CO-7048-003": {"cost_code": "08-800", "cost_type": "S", "cost_of_work": "106818.18", "fee": "10681.82",
                    "owner_signed_by": "Elaine Keller", "procore_status": "Pending - Proceeding"},
    "CO-9427-004": {"cost_code": "08-800", "cost_type": "S", "cost_of_work": "132863.64", "fee": "13286.36",
                    "owner_signed_by": "Dana Whitfield", "signed_amount": "146150.00"},
    "CO-5965-001": {"cost_code": "22-400", "cost_type": "M", "cost_of_work": "212636.36", "fee": "21263.64",
                    "owner_signed_by": "Lisa Woodard"},
}
CONTROLLER = {"name": "Renee Albright", "email": "controller@companyA.com"}

COST_TYPES = [
    {"code": "L", "name": "Labor"},
    {"code": "M", "name": "Material"},
    {"code": "S", "name": "Subcontract"},
    {"code": "E", "name": "Equipment"},
    {"code": "O", "name": "Other"},
]

# (company code, CSI MasterFormat, description)
COST_CODES = [
    ("01-100", "01 31 00", "Project Management and Supervision"),
    ("01-200", "01 50 00", "Temporary Facilities"),
    ("01-300", "01 51 00", "Temporary Utilities"),
    ("01-400", "01 45 00", "Quality Control and Testing"),
    ("01-500", "01 74 00", "Final Cleaning"),
    ("01-510", "01 74 19", "Construction Waste Management"),
    ("01-600", "01 35 23", "Site Safety"),
    ("02-400", "02 41 00", "Demolition"),
    ("02-410", "02 41 19", "Selective Demolition"),
    ("02-800", "02 82 00", "Hazardous Material Abatement"),
    ("03-100", "03 10 00", "Concrete Forming and Accessories"),
    ("03-200", "03 20 00", "Concrete Reinforcing"),
    ("03-300", "03 30 00", "Cast-in-Place Concrete"),
    ("03-310", "03 31 00", "Structural Concrete"),
    ("03-350", "03 35 00", "Concrete Finishing"),
    ("03-400", "03 40 00", "Precast Concrete"),
    ("04-200", "04 20 00", "Unit Masonry"),
    ("04-400", "04 40 00", "Stone Assemblies"),
    ("05-100", "05 12 00", "Structural Steel Framing"),
    ("05-300", "05 31 00", "Steel Decking"),
    ("05-500", "05 50 00", "Metal Fabrications"),
    ("05-510", "05 51 00", "Metal Stairs"),
    ("06-100", "06 10 00", "Rough Carpentry"),
    ("06-200", "06 20 00", "Finish Carpentry"),
    ("06-400", "06 40 00", "Architectural Woodwork"),
    ("07-100", "07 10 00", "Dampproofing and Waterproofing"),
    ("07-200", "07 21 00", "Thermal Insulation"),
    ("07-500", "07 50 00", "Membrane Roofing"),
    ("07-600", "07 60 00", "Flashing and Sheet Metal"),
    ("07-900", "07 92 00", "Joint Sealants"),
    ("08-100", "08 11 00", "Metal Doors and Frames"),
    ("08-400", "08 41 00", "Entrances and Storefronts"),
    ("08-700", "08 71 00", "Door Hardware"),
    ("08-800", "08 80 00", "Glazing"),
    ("09-200", "09 21 00", "Gypsum Board Assemblies"),
    ("09-210", "09 22 16", "Non-Structural Metal Framing"),
    ("09-300", "09 30 00", "Tiling"),
    ("09-500", "09 51 00", "Acoustical Ceilings"),
    ("09-600", "09 60 00", "Flooring"),
    ("09-650", "09 65 00", "Resilient Flooring"),
    ("09-900", "09 91 00", "Painting and Coating"),
    ("10-100", "10 10 00", "Specialties"),
    ("10-280", "10 28 00", "Toilet and Bath Accessories"),
    ("14-200", "14 21 00", "Elevators"),
    ("21-100", "21 13 00", "Fire Suppression Sprinklers"),
    ("22-100", "22 11 00", "Plumbing Piping"),
    ("22-400", "22 40 00", "Plumbing Fixtures"),
    ("23-100", "23 31 00", "HVAC Ductwork"),
    ("23-200", "23 21 00", "HVAC Piping and Pumps"),
    ("23-700", "23 70 00", "Central HVAC Equipment"),
    ("23-900", "23 05 93", "Testing, Adjusting and Balancing"),
    ("26-100", "26 05 00", "Common Work Results for Electrical"),
    ("26-200", "26 20 00", "Low-Voltage Electrical Distribution"),
    ("26-210", "26 27 00", "Branch Circuit Wiring and Devices"),
    ("26-500", "26 50 00", "Lighting"),
    ("27-100", "27 10 00", "Structured Cabling"),
    ("28-100", "28 31 00", "Fire Detection and Alarm"),
    ("31-100", "31 10 00", "Site Clearing"),
    ("31-200", "31 23 00", "Earthwork \u2014 Excavation and Fill"),
    ("31-210", "31 23 33", "Trenching and Backfilling"),
    ("31-220", "31 23 16", "Rock Removal"),
    ("31-250", "31 25 00", "Erosion and Sedimentation Controls"),
    ("31-500", "31 50 00", "Excavation Support and Protection"),
    ("32-100", "32 12 16", "Asphalt Paving"),
    ("32-130", "32 13 13", "Concrete Paving and Sidewalks"),
    ("32-300", "32 31 00", "Fences and Gates"),
    ("32-900", "32 90 00", "Landscaping and Planting"),
    ("33-100", "33 10 00", "Water Utilities"),
    ("33-300", "33 30 00", "Sanitary Sewerage"),
    ("33-400", "33 40 00", "Storm Drainage"),
]

# Codes the Vista phase master consolidates into a sibling phase (the map is not the identity).
VISTA_CONSOLIDATIONS = {
    "01-510": "01-500",
    "02-410": "02-400",
    "03-310": "03-300",
    "05-510": "05-500",
    "09-210": "09-200",
    "09-650": "09-600",
    "26-210": "26-200",
    "31-210": "31-200",
    "31-220": "31-200",
    "32-130": "32-100",
}

# trade -> (kind, cost codes it works on, cost type, name words, commitment titles)
TRADES = {
    "excavation": ("sub", ["31-200", "31-210", "31-220", "31-100"], "S",
                   ["Excavating", "Grading", "Earthworks", "Site Works"],
                   ["Mass excavation and grading", "Site excavation and haul-off", "Trenching and backfill"]),
    "demolition": ("sub", ["02-400", "02-410", "02-800"], "S",
                   ["Demolition", "Wrecking", "Abatement"], ["Building demolition", "Selective demolition"]),
    "concrete": ("sub", ["03-100", "03-200", "03-300", "03-310", "03-350"], "S",
                 ["Concrete", "Concrete Construction", "Foundations"],
                 ["Cast-in-place concrete", "Foundations and slabs on grade", "Structural concrete"]),
    "masonry": ("sub", ["04-200", "04-400"], "S", ["Masonry", "Brick & Block"], ["Masonry package"]),
    "steel": ("sub", ["05-100", "05-300", "05-500", "05-510"], "S",
              ["Steel Erectors", "Steel", "Ironworks", "Fabricators"],
              ["Structural steel furnish and erect", "Misc. metals and stairs"]),
    "carpentry": ("sub", ["06-100", "06-200", "06-400"], "S", ["Carpentry", "Builders", "Millwork"],
                  ["Rough carpentry", "Finish carpentry and millwork"]),
    "roofing": ("sub", ["07-500", "07-600", "07-200"], "S", ["Roofing", "Roofing & Sheet Metal"],
                ["Roofing and sheet metal"]),
    "waterproofing": ("sub", ["07-100", "07-900"], "S", ["Waterproofing", "Sealants"],
                      ["Below-grade waterproofing", "Joint sealants"]),
    "glazing": ("sub", ["08-400", "08-800", "08-100", "08-700"], "S", ["Glass", "Glazing", "Door & Hardware"],
                ["Storefront and glazing", "Doors, frames and hardware"]),
    "drywall": ("sub", ["09-200", "09-210", "09-500"], "S", ["Drywall", "Interiors", "Drywall & Acoustics"],
                ["Drywall, framing and ceilings"]),
    "painting": ("sub", ["09-900"], "S", ["Painting", "Coatings"], ["Painting and wall coverings"]),
    "flooring": ("sub", ["09-600", "09-650", "09-300"], "S", ["Flooring", "Tile", "Floor Covering"],
                 ["Flooring and tile"]),
    "specialties": ("sub", ["10-100", "10-280"], "S", ["Specialties", "Building Specialties"],
                    ["Division 10 specialties"]),
    "elevator": ("sub", ["14-200"], "S", ["Elevator", "Lift Systems"], ["Elevator furnish and install"]),
    "fire_protection": ("sub", ["21-100"], "S", ["Fire Protection", "Sprinkler"], ["Fire sprinkler system"]),
    "plumbing": ("sub", ["22-100", "22-400"], "S", ["Plumbing", "Plumbing & Mechanical"], ["Plumbing"]),
    "hvac": ("sub", ["23-100", "23-200", "23-700", "23-900"], "S", ["Mechanical", "Heating & Air", "HVAC"],
             ["HVAC and mechanical"]),
    "electrical": ("sub", ["26-100", "26-200", "26-210", "26-500", "28-100"], "S",
                   ["Electric", "Electrical Contractors", "Electrical"], ["Electrical", "Electrical and fire alarm"]),
    "low_voltage": ("sub", ["27-100", "28-100"], "S", ["Communications", "Low Voltage", "Data Systems"],
                    ["Structured cabling and low voltage"]),
    "paving": ("sub", ["32-100", "32-130"], "S", ["Paving", "Asphalt"], ["Paving and sidewalks"]),
    "landscaping": ("sub", ["32-900", "32-300"], "S", ["Landscaping", "Landscape", "Fence & Landscape"],
                    ["Landscaping and fencing"]),
    "utilities": ("sub", ["33-100", "33-300", "33-400"], "S", ["Utilities", "Pipeline", "Underground"],
                  ["Site utilities", "Storm and sanitary utilities"]),
    "concrete_supply": ("supplier", ["03-300", "03-310"], "M", ["Ready Mix", "Concrete Supply"],
                        ["Ready-mix concrete supply"]),
    "rebar_supply": ("supplier", ["03-200"], "M", ["Rebar", "Reinforcing Steel"], ["Rebar furnish"]),
    "lumber_supply": ("supplier", ["06-100"], "M", ["Lumber", "Building Supply"], ["Lumber and sheathing"]),
    "electric_supply": ("supplier", ["26-100", "26-500"], "M", ["Electric Supply", "Lighting Supply"],
                        ["Switchgear and lighting package"]),
    "plumbing_supply": ("supplier", ["22-100", "22-400"], "M", ["Plumbing Supply", "Pipe & Supply"],
                        ["Plumbing fixtures supply"]),
    "aggregate_supply": ("supplier", ["31-200", "32-100"], "M", ["Aggregates", "Stone & Sand"],
                         ["Stone base and fill material"]),
    "equipment_rental": ("supplier", ["01-200", "31-200"], "E", ["Equipment Rental", "Rentals"],
                         ["Equipment rental"]),
    "site_services": ("supplier", ["01-200", "01-300", "01-500", "01-510"], "O",
                      ["Site Services", "Portable Services", "Waste Services"],
                      ["Temporary facilities and dumpsters"]),
    "testing": ("supplier", ["01-400"], "O", ["Testing", "Engineering & Testing"],
                ["Special inspections and testing"]),
}

GL_ACCOUNTS = [
    ("1000", "Operating Cash", "asset"), ("1010", "Payroll Cash", "asset"),
    ("1020", "Money Market", "asset"), ("1100", "Contract Receivables", "asset"),
    ("1110", "Retainage Receivable", "asset"), ("1150", "Allowance for Doubtful Accounts", "asset"),
    ("1200", "Costs in Excess of Billings", "asset"), ("1300", "Inventory - Materials", "asset"),
    ("1400", "Prepaid Insurance", "asset"), ("1410", "Prepaid Expenses", "asset"),
    ("1500", "Construction Equipment", "asset"), ("1510", "Vehicles", "asset"),
    ("1520", "Office Furniture and Equipment", "asset"), ("1590", "Accumulated Depreciation", "asset"),
    ("1700", "Right-of-Use Assets", "asset"), ("1900", "Deposits", "asset"),
    ("2000", "Accounts Payable", "liability"), ("2010", "Retainage Payable", "liability"),
    ("2100", "Accrued Liabilities", "liability"), ("2110", "Accrued Payroll", "liability"),
    ("2120", "Accrued Payroll Taxes", "liability"), ("2130", "Union Fringe Payable", "liability"),
    ("2140", "Accrued Workers Compensation", "liability"), ("2200", "Billings in Excess of Costs", "liability"),
    ("2300", "Sales and Use Tax Payable", "liability"), ("2400", "Line of Credit", "liability"),
    ("2500", "Equipment Notes Payable", "liability"), ("2600", "Lease Liabilities", "liability"),
    ("2700", "Customer Deposits", "liability"), ("2800", "Loss Provision", "liability"),
    ("3000", "Common Stock", "equity"), ("3100", "Additional Paid-in Capital", "equity"),
    ("3200", "Retained Earnings", "equity"), ("3300", "Distributions", "equity"),
    ("4000", "Contract Revenue", "revenue"), ("4010", "Change Order Revenue", "revenue"),
    ("4100", "Unapproved Change Order Revenue", "revenue"), ("4200", "Equipment Rental Income", "revenue"),
    ("4900", "Other Income", "revenue"), ("5000", "Direct Labor", "expense"),
    ("5010", "Labor Burden", "expense"), ("5100", "Materials", "expense"),
    ("5200", "Subcontract Cost", "expense"), ("5300", "Equipment Cost", "expense"),
    ("5400", "Other Job Cost", "expense"), ("5500", "Permits and Fees", "expense"),
    ("5600", "Job Insurance and Bonds", "expense"), ("5900", "Job Cost Clearing", "expense"),
    ("6000", "Officer Salaries", "expense"), ("6010", "Office Salaries", "expense"),
    ("6020", "Payroll Taxes - Office", "expense"), ("6100", "Rent", "expense"),
    ("6110", "Utilities - Office", "expense"), ("6200", "Insurance - General", "expense"),
    ("6300", "Professional Fees", "expense"), ("6310", "Legal Fees", "expense"),
    ("6400", "Software and Subscriptions", "expense"), ("6410", "Telephone and Internet", "expense"),
    ("6500", "Travel and Meals", "expense"), ("6600", "Depreciation Expense", "expense"),
    ("6700", "Vehicle Expense", "expense"), ("6800", "Office Supplies", "expense"),
    ("6900", "Bank Charges", "expense"), ("6950", "Bad Debt Expense", "expense"),
    ("7000", "Interest Income", "revenue"), ("7100", "Interest Expense", "expense"),
    ("7200", "Gain/Loss on Sale of Equipment", "revenue"), ("8000", "Income Tax Expense", "expense"),
]
