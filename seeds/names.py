"""Word lists for people, companies, places and job names (all fictional)."""
from __future__ import annotations

FIRST_NAMES = [
    "James", "Maria", "Robert", "Linda", "Michael", "Patricia", "David", "Jennifer", "Carlos", "Angela",
    "Thomas", "Karen", "Daniel", "Nancy", "Mark", "Lisa", "Steven", "Sandra", "Paul", "Donna",
    "Kevin", "Michelle", "Brian", "Laura", "Jason", "Rachel", "Eric", "Heather", "Luis", "Tamika",
    "Greg", "Denise", "Andre", "Kelly", "Raymond", "Monica", "Trevor", "Alicia", "Wesley", "Dana",
    "Hector", "Brenda", "Curtis", "Yolanda", "Derek", "Shannon", "Marcus", "Erin", "Victor", "Holly",
]

LAST_NAMES = [
    "Morales", "Walsh", "Harper", "Bennett", "Castillo", "Dawson", "Ellison", "Fletcher", "Garrison",
    "Hollister", "Ingram", "Jeffries", "Kowalski", "Langford", "Mercer", "Nguyen", "Oakley", "Prescott",
    "Quinlan", "Ramsey", "Stanton", "Thornton", "Underwood", "Vance", "Whitaker", "Yates", "Abernathy",
    "Barrow", "Crenshaw", "Delgado", "Eubanks", "Faircloth", "Gaskins", "Honeycutt", "Isley", "Jernigan",
    "Kearney", "Lockhart", "McAllister", "Norwood", "Overby", "Pruitt", "Rhodes", "Sizemore", "Tolliver",
    "Upchurch", "Vickers", "Weatherly", "Albright", "Blackwell", "Carraway", "Dunleavy", "Esposito",
    "Fuentes", "Greer", "Hatcher", "Jordan", "Keller", "Lyles", "Massey", "Navarro", "Ortega", "Pittman",
    "Reyes", "Shepherd", "Tillman", "Vaughn", "Woodard", "Beasley", "Coble", "Dorsett", "Everhart",
    "Fortner", "Goodson", "Hinson", "Kimrey", "Ledford", "Mabry", "Nance", "Poteat", "Rominger", "Suggs",
]

PLACE_WORDS = [
    "Piedmont", "Carolina", "Blue Ridge", "Tidewater", "Catawba", "Yadkin", "Cape Fear", "Triangle",
    "Crescent", "Southern", "Eastern", "Allied", "Keystone", "Summit", "Pinnacle", "Heritage", "Atlantic",
    "Lakeside", "Riverbend", "Granite", "Ironwood", "Longleaf", "Magnolia", "Palmetto", "Sandhills",
    "Coastal", "Mountain", "Premier", "Precision", "Quality", "Reliable", "United", "Patriot", "Liberty",
    "Cardinal", "Dogwood", "Falcon", "Guardian", "Horizon", "Meridian", "Northstar", "Redline", "Skyline",
]

# (city, state, zip prefix, area code)
CITIES = [
    ("Charlotte", "NC", "282", "704"), ("Raleigh", "NC", "276", "919"), ("Durham", "NC", "277", "919"),
    ("Greensboro", "NC", "274", "336"), ("Winston-Salem", "NC", "271", "336"), ("Cary", "NC", "275", "919"),
    ("Wilmington", "NC", "284", "910"), ("Fayetteville", "NC", "283", "910"), ("Asheville", "NC", "288", "828"),
    ("Concord", "NC", "280", "704"), ("Gastonia", "NC", "280", "704"), ("Hickory", "NC", "286", "828"),
    ("Greenville", "SC", "296", "864"), ("Columbia", "SC", "292", "803"), ("Rock Hill", "SC", "297", "803"),
    ("Spartanburg", "SC", "293", "864"), ("Richmond", "VA", "232", "804"), ("Norfolk", "VA", "235", "757"),
    ("Roanoke", "VA", "240", "540"), ("Danville", "VA", "245", "434"),
]

STREETS = [
    "Main", "Tryon", "Wade", "Industrial", "Commerce", "Airport", "Westinghouse", "Old Pineville", "Capital",
    "Glenwood", "Falls of Neuse", "Independence", "Wilkinson", "Sunset", "Brookshire", "Statesville",
    "Kings", "Lakeview", "Park", "Harrison", "Poplar", "Hillsborough", "Battleground", "Peters Creek",
    "Market", "Front", "Hargett", "Morgan", "Trade", "Elm", "Oak", "Cedar", "Chestnut", "Magnolia",
]
STREET_SUFFIXES = ["St", "Rd", "Ave", "Blvd", "Dr", "Pkwy", "Way", "Ln"]

# job_type -> (building words, owner patterns)
JOB_TYPES = {
    "public_works": (["Water Treatment Plant Expansion", "Public Safety Complex", "Fire Station No. {n}",
                      "Elementary School Addition", "Middle School Renovation", "Community Recreation Center",
                      "Public Library Branch", "Transit Maintenance Facility", "Courthouse Renovation",
                      "Wastewater Pump Station"],
                     ["City of {city}", "{county} County", "{county} County Schools",
                      "{city} Water Resources", "State of {state_name} DOA"]),
    "healthcare": (["Medical Office Building", "Outpatient Surgery Center", "Behavioral Health Pavilion",
                    "Cancer Center Addition", "Urgent Care Clinic"],
                   ["{place} Health System", "{place} Medical Partners, LLC", "{place} Regional Hospital"]),
    "commercial": (["Office Tower", "Corporate Headquarters", "Retail Center", "Mixed-Use Podium",
                    "Bank Branch", "Hotel", "Parking Deck"],
                   ["{place} Development Partners, LLC", "{last} Properties, Inc.", "{place} Realty Group"]),
    "multifamily": (["Apartments Phase {n}", "Senior Living Community", "Student Housing",
                     "Townhomes"],
                    ["{place} Residential, LLC", "{last} Communities", "{place} Living Partners"]),
    "industrial": (["Distribution Center", "Manufacturing Plant Expansion", "Cold Storage Warehouse",
                    "Logistics Park Building {n}"],
                   ["{place} Logistics, LLC", "{last} Industrial Holdings", "{place} Manufacturing Co."]),
    "education": (["Science Building", "Residence Hall", "Athletic Field House", "Student Union Renovation"],
                  ["{place} University", "{place} Community College", "{place} Academy"]),
}

STATE_NAMES = {"NC": "North Carolina", "SC": "South Carolina", "VA": "Virginia"}
COUNTIES = ["Mecklenburg", "Wake", "Durham", "Guilford", "Forsyth", "Cabarrus", "Gaston", "New Hanover",
            "Buncombe", "Cumberland", "Union", "Iredell", "Johnston", "Orange", "Alamance", "York",
            "Greenville", "Richland", "Henrico", "Chesterfield"]

PM_NAMES = [
    ("Dana", "Whitfield"), ("Marcus", "Hale"), ("Priya", "Raman"), ("Tom", "Kessler"), ("Alicia", "Moreno"),
    ("Ben", "Okafor"), ("Sarah", "Lindqvist"), ("Jorge", "Villanueva"), ("Kate", "Brennan"),
    ("Will", "Ashby"),
]

SUFFIXES = [", Inc.", ", LLC", " Co.", ", Inc.", ", LLC", " Corp.", " & Sons, Inc.", " Group, LLC"]

ALT_WORDS = {  # old names / abbreviations used for genuine name differences
    "Brothers": "Bros", "Mechanical": "Mech", "Services": "Svcs", "Construction": "Constr",
    "Contractors": "Contr", "Electrical": "Elec", "Company": "Co",
}
