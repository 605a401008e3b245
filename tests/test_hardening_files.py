"""Files a kill can leave half-written (issue cause 10): a damaged template cache file is
detected and rebuilt, never loaded as "database disk image is malformed"; temporary files a
killed writer left (cache parts, zero-byte recordings) are cleaned up.
"""
from __future__ import annotations

import os
import time

import pytest

from portals.core import recording, template_cache
from portals.core.environment import Environment
from portals.core.episode import EpisodeStore


@pytest.fixture(scope="module")
def box_cached(tmp_path_factory, book_store):
    """The box template built once, and its cache file as `save` wrote it: (name, built, whole)."""
    folder = tmp_path_factory.mktemp("templates")
    patch = pytest.MonkeyPatch()
    patch.setattr(template_cache, "CACHE_DIR", folder)
    patch.setenv("CFAB_TEMPLATE_CACHE", "on")
    try:
        built = fresh_store(book_store).template("box").db_bytes
    finally:
        patch.undo()
    path = cached_file(folder)
    return path.name, built, path.read_bytes()


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(template_cache, "CACHE_DIR", tmp_path / "templates")
    monkeypatch.setenv("CFAB_TEMPLATE_CACHE", "on")
    (tmp_path / "templates").mkdir()
    return tmp_path / "templates"


def fresh_store(book_store) -> EpisodeStore:
    return EpisodeStore(book=book_store.book, seed=book_store.seed, clock=book_store.clock)


def cached_file(folder):
    files = sorted(folder.glob("box-*.sqlite"))
    assert len(files) == 1, files
    return files[0]


def a_working_episode(store) -> None:
    episode = store.create(["box"])
    try:
        listed = Environment(episode, ["box"]).call("box.folders.items.list", {"folder_id": 0})
        assert "error" not in listed and listed["items"], listed
    finally:
        store.drop(episode.id)


def damaged(whole: bytes, built: bytes, damage: str) -> bytes:
    if damage == "truncated":
        return whole[:len(whole) // 2]  # a kill in the middle of the write
    if damage == "one byte changed":
        middle = len(built) // 2
        return whole[:middle] + bytes([whole[middle] ^ 0xFF]) + whole[middle + 1:]
    if damage == "emptied":
        return b""
    if damage == "no checksum":
        return built  # an SQLite file without the trailer proving it whole
    return whole[-template_cache.TRAILER:]


@pytest.mark.parametrize("damage", ["truncated", "one byte changed", "emptied", "no checksum", "trailer only"])
def test_a_damaged_template_cache_file_is_refused_and_removed(cache_dir, box_cached, damage):
    name, built, whole = box_cached
    assert whole.startswith(built) and len(whole) == len(built) + template_cache.TRAILER
    path = cache_dir / name
    path.write_bytes(damaged(whole, built, damage))
    key = name[len("box-"):-len(".sqlite")]
    assert template_cache.load("box", key) is None and not path.exists()


def test_a_truncated_template_cache_file_is_rebuilt_and_saved_whole(cache_dir, box_cached, book_store):
    name, built, whole = box_cached
    (cache_dir / name).write_bytes(whole[:len(whole) // 2])
    store = fresh_store(book_store)
    assert store.template("box").db_bytes == built  # rebuilt: the same bytes as before
    assert (cache_dir / name).read_bytes() == whole  # and saved whole again
    a_working_episode(store)


def test_a_whole_cache_file_is_used_as_it_is(cache_dir, box_cached, book_store):
    name, built, whole = box_cached
    (cache_dir / name).write_bytes(whole)
    key = name[len("box-"):-len(".sqlite")]
    assert template_cache.load("box", key) == built and (cache_dir / name).exists()
    store = fresh_store(book_store)
    assert store.template("box").db_bytes == built
    a_working_episode(store)


def test_stale_cache_parts_are_removed_and_live_ones_kept(cache_dir, box_cached):
    stale, live = cache_dir / "tmpkilled.part", cache_dir / "tmpwriting.part"
    stale.write_bytes(b"half a templ")
    live.write_bytes(b"")
    old = time.time() - template_cache.STALE_SECONDS - 5
    os.utime(stale, (old, old))
    name, built, _whole = box_cached
    template_cache.save("box", name[len("box-"):-len(".sqlite")], built)  # any save cleans up
    assert not stale.exists() and live.exists()


def test_leftover_recordings_are_cleaned_at_start_and_on_each_write(tmp_path):
    folder = tmp_path / "recordings"
    folder.mkdir()
    killed = [folder / ".tmp-killed-during-finish.json", folder / ".tmp-abc123.json"]
    for path in killed:
        path.write_bytes(b"")  # what a SIGKILL during Finish leaves
        old = time.time() - recording.LEFTOVER_SECONDS - 1
        os.utime(path, (old, old))
    writing = folder / ".tmp-being-written.json"  # another writer's, this very moment
    writing.write_bytes(b"")
    kept = folder / "cf_A-20260630T170000Z.json"
    kept.write_text("{}")
    assert recording.clean_leftovers(folder) == 2
    assert not any(p.exists() for p in killed) and writing.exists() and kept.exists()
    assert recording.clean_leftovers(tmp_path / "no such folder") == 0
    for path in killed:
        path.write_bytes(b"")
        os.utime(path, (time.time() - 3600, time.time() - 3600))
    doc = {"instance_id": "cf_X", "recorded_at": "2026-06-30T17:00:00Z"}
    written = recording.write(doc, folder)
    assert written.exists() and not any(p.exists() for p in killed)
    assert sorted(p.name for p in folder.glob(".tmp-*")) == [writing.name]
