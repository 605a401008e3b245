"""Every read and write of the Office mail archetype (Outlook)."""
from .reading import get_attachment, get_message_detail, list_mail_folders, list_messages
from .writing import (categorize_message, create_draft, forward_message, mark_read, move_message,
                      reply_message, send_message)

__all__ = ["categorize_message", "create_draft", "forward_message", "get_attachment", "get_message_detail",
           "list_mail_folders", "list_messages", "mark_read", "move_message", "reply_message", "send_message"]
