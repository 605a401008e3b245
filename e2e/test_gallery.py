"""`cfab gallery` on one app: a PNG per main screen and an index page, and it names a broken page."""
from __future__ import annotations

from pathlib import Path

from agent.gallery import run_gallery


def test_the_gallery_shoots_every_screen_and_names_a_broken_one(tmp_path, e2e_store, browser, live_server):
    result = run_gallery(tmp_path, ["outlook"], store=e2e_store, browser=browser, server=live_server,
                         extra=[("outlook", "missing-message", "/outlook/message/no-such-message")])
    shots = {s["screen"]: s for s in result["screens"]}
    assert {"inbox", "message", "compose"} <= set(shots)
    for name in ("inbox", "message", "compose"):
        image = tmp_path / shots[name]["image"]
        assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and not shots[name]["problems"]
    index = Path(result["index"]).read_text()
    assert all(shots[n]["image"] in index for n in ("inbox", "message", "compose"))
    assert result["failed"] == [next(f for f in result["failed"] if f.startswith("outlook/missing-message"))]
    assert "404" in result["failed"][0]
