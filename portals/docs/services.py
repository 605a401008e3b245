"""Every read and write of the Docs archetype (Box, SharePoint)."""
from .browse import download_file, get_file_info, list_folder_items, ocr_pdf, search_files
from .manage import (apply_metadata, create_collaboration, create_shared_link, create_sign_request,
                     upload_file)

__all__ = ["apply_metadata", "create_collaboration", "create_shared_link", "create_sign_request",
           "download_file", "get_file_info", "list_folder_items", "ocr_pdf", "search_files", "upload_file"]
