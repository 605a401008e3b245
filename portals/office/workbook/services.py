"""Every read and write of Excel workbooks (the Office archetype's workbook line)."""
from .reading import download_workbook, get_range, list_table_rows, list_workbooks, list_worksheets
from .writing import add_table_rows, calculate, update_range

__all__ = ["add_table_rows", "calculate", "download_workbook", "get_range", "list_table_rows", "list_workbooks",
           "list_worksheets", "update_range"]
