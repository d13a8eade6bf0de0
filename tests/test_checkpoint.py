"""Checkpoint files on disk: atomic commit, checksums, fallback, keep-last-K (one process, no torchrun)."""

import torch

from labs.core.checkpoint import Checkpointer, committed_steps, verify


def state(step: int) -> dict:
    return {"step": step, "w": torch.full((64, 64), float(step))}


def test_save_load_roundtrip_and_keep_last_k(tmp_path):
    ck = Checkpointer(tmp_path, rank=0, world=1, keep=2, mode="sync")
    for s in (5, 10, 15):
        ck.save(s, state(s), {"rng": s})
    assert [p.name for p in committed_steps(tmp_path)] == ["step-000010", "step-000015"]
    loaded = ck.load_latest()
    assert loaded.step == 15 and loaded.local == {"rng": 15}
    assert torch.equal(loaded.shared["w"], state(15)["w"]) and loaded.skipped == []


def test_async_save_does_not_see_later_changes(tmp_path):
    ck = Checkpointer(tmp_path, rank=0, world=1, mode="async")
    live = state(1)
    ck.save(1, live, {})
    live["w"].add_(100)           # training goes on while the thread writes
    ck.wait()
    assert torch.equal(ck.load_latest().shared["w"], state(1)["w"])


def test_torn_newest_checkpoint_falls_back_to_previous(tmp_path):
    ck = Checkpointer(tmp_path, rank=0, world=1, mode="sync")
    ck.save(5, state(5), {})
    ck.save(10, state(10), {})
    shared = tmp_path / "step-000010" / "shared.pt"
    shared.write_bytes(shared.read_bytes()[:100])
    assert "bytes" in verify(tmp_path / "step-000010")
    loaded = ck.load_latest()
    assert loaded.step == 5 and loaded.skipped[0]["path"] == "step-000010"


def test_same_size_corruption_is_caught_by_the_checksum(tmp_path):
    ck = Checkpointer(tmp_path, rank=0, world=1, mode="sync")
    ck.save(5, state(5), {})
    f = tmp_path / "step-000005" / "shared.pt"
    data = bytearray(f.read_bytes())
    data[-100] ^= 0xFF
    f.write_bytes(bytes(data))
    assert "sha256" in verify(tmp_path / "step-000005")
    loaded = ck.load_latest()
    assert loaded.step == 0 and loaded.skipped  # nothing good left: start fresh, and say why


def test_half_written_folder_is_never_loaded_and_is_cleaned(tmp_path):
    ck = Checkpointer(tmp_path, rank=0, world=1, mode="sync")
    ck.save(5, state(5), {})
    torn = tmp_path / "step-000010.tmp"
    torn.mkdir()
    (torn / "shared.pt.part").write_bytes(b"half")
    assert ck.load_latest().step == 5
    assert ck.clean_partial() == ["step-000010.tmp"] and not torn.exists()


def test_missing_manifest_means_incomplete(tmp_path):
    ck = Checkpointer(tmp_path, rank=0, world=1, mode="sync")
    ck.save(5, state(5), {})
    (tmp_path / "step-000005" / "manifest.json").unlink()
    assert "manifest" in verify(tmp_path / "step-000005")
