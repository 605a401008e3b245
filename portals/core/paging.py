"""One page of a select, as every list tool answers it ({"items", "page", "per_page", "total", "pages"})."""
from __future__ import annotations

from .db import page_total
from .errors import ToolError

MAX_PER_PAGE = 100


def check_paging(page: int, per_page: int) -> None:
    if page < 1:
        raise ToolError("Page must be 1 or more.", "page")
    if not 1 <= per_page <= MAX_PER_PAGE:
        raise ToolError(f"Per page must be between 1 and {MAX_PER_PAGE}.", "per_page")


def paged(session, stmt, page: int, per_page: int, shape) -> dict:
    """Run `stmt` one page at a time; `shape` takes a result row's columns (or a lone entity)."""
    check_paging(page, per_page)
    rows = session.execute(stmt.limit(per_page).offset((page - 1) * per_page)).all()
    total = page_total(session, stmt, page, per_page, len(rows))
    return {"items": [shape(*r) if isinstance(r, tuple) or hasattr(r, "_fields") else shape(r) for r in rows],
            "page": page, "per_page": per_page, "total": total, "pages": (total + per_page - 1) // per_page}
