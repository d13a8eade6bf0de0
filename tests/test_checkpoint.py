"""The one checkpoint path (DCP + atomic commit + manifest), in one process with a 1-rank gloo group.

The torchrun tests (test_fault_resume.py) cover several ranks; these pin down each guarantee alone, and each
negative control: an aliased async snapshot and a naive (uncommitted, unchecked) write must break it.
"""

import socket

import pytest
import torch
import torch.distributed as dist

from labs.core.checkpoint import Checkpointer, commit_folder, committed_steps, verify, verify_share


@pytest.fixture(scope="module", autouse=True)
def one_rank_group():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    dist.init_process_group("gloo", rank=0, world_size=1, init_method=f"tcp://127.0.0.1:{port}")
    yield
    dist.destroy_process_group()


def state(step: int) -> dict:
    return {"w": torch.full((64, 64), float(step)), "objects": {"step": step}}


def load(ck: Checkpointer):
    return ck.load_latest(lambda: state(-1))


def test_save_load_roundtrip_and_keep_last_k(tmp_path):
    ck = Checkpointer(tmp_path, rank=0, world=1, keep=2, mode="sync")
    for s in (5, 10, 15):
        ck.save(s, state(s))
    assert [p.name for p in committed_steps(tmp_path)] == ["step-000010", "step-000015"]
    loaded = load(ck)
    assert loaded.step == 15 and loaded.skipped == [] and loaded.state["objects"]["step"] == 15
    assert torch.equal(loaded.state["w"], state(15)["w"])
    assert verify(tmp_path / "step-000015") == ""


def test_async_save_is_a_copy_and_the_aliased_control_is_not(tmp_path):
    good = Checkpointer(tmp_path / "good", rank=0, world=1, mode="async")
    live = state(1)
    good.save(1, live)
    live["w"].add_(100)           # training goes on while the writer process writes
    good.close()
    assert torch.equal(load(good).state["w"], state(1)["w"])

    bad = Checkpointer(tmp_path / "bad", rank=0, world=1, mode="async", mutation="alias")
    live = state(1)
    bad.save(1, live)             # no copy, and a writer that waits: the later change is what gets written
    live["w"].add_(100)
    bad.close()
    assert torch.equal(load(bad).state["w"], state(1)["w"] + 100)


def test_torn_newest_checkpoint_falls_back_to_previous(tmp_path):
    ck = Checkpointer(tmp_path, rank=0, world=1, mode="sync")
    ck.save(5, state(5))
    ck.save(10, state(10))
    (shard,) = (tmp_path / "step-000010").glob("*.distcp")
    shard.write_bytes(shard.read_bytes()[:100])
    assert "bytes" in verify(tmp_path / "step-000010")
    loaded = load(ck)
    assert loaded.step == 5 and loaded.skipped[0]["path"] == "step-000010"


def test_same_size_corruption_is_caught_by_the_checksum(tmp_path):
    ck = Checkpointer(tmp_path, rank=0, world=1, mode="sync")
    ck.save(5, state(5))
    (shard,) = (tmp_path / "step-000005").glob("*.distcp")
    data = bytearray(shard.read_bytes())
    data[-100] ^= 0xFF
    shard.write_bytes(bytes(data))
    assert "sha256" in verify(tmp_path / "step-000005")
    loaded = load(ck)
    assert loaded.step == 0 and loaded.skipped  # nothing good left: start fresh, and say why


def test_naive_control_loads_a_corrupt_checkpoint_without_checking(tmp_path):
    ck = Checkpointer(tmp_path, rank=0, world=1, mode="sync", mutation="naive")
    ck.save(5, state(5))
    assert not (tmp_path / "step-000005" / "manifest.json").exists()   # written in place, never committed
    (shard,) = (tmp_path / "step-000005").glob("*.distcp")
    shard.write_bytes(shard.read_bytes()[: shard.stat().st_size // 2])
    with pytest.raises(BaseException):  # noqa: B017 - DCP raises CheckpointException, a BaseException
        load(ck)


def test_half_written_folder_is_never_loaded_and_is_cleaned(tmp_path):
    ck = Checkpointer(tmp_path, rank=0, world=1, mode="sync")
    ck.save(5, state(5))
    torn = tmp_path / "step-000010.tmp"
    torn.mkdir()
    (torn / "__0_0.distcp").write_bytes(b"half")
    assert load(ck).step == 5
    assert ck.clean_partial() == ["step-000010.tmp"] and not torn.exists()


def test_missing_manifest_means_incomplete(tmp_path):
    ck = Checkpointer(tmp_path, rank=0, world=1, mode="sync")
    ck.save(5, state(5))
    (tmp_path / "step-000005" / "manifest.json").unlink()
    assert "manifest" in verify(tmp_path / "step-000005")


def test_each_rank_verifies_a_disjoint_share(tmp_path):
    folder = tmp_path / "step-000001.tmp"
    folder.mkdir()
    for i in range(5):
        (folder / f"__{i}_0.distcp").write_bytes(bytes(1000 * (i + 1)))
    commit_folder(folder, tmp_path / "step-000001", step=1, world=2)
    shares = [verify_share(tmp_path / "step-000001", rank, 2) for rank in (0, 1)]
    assert [problem for problem, _ in shares] == ["", ""]
    assert sum(read for _, read in shares) == sum(1000 * (i + 1) for i in range(5))
    assert all(read < 15_000 for _, read in shares)            # neither rank reads everything
    (tmp_path / "step-000001" / "__3_0.distcp").write_bytes(bytes(4000)[:10])
    problems = [verify_share(tmp_path / "step-000001", rank, 2)[0] for rank in (0, 1)]
    assert sum(bool(p) for p in problems) == 1 and "__3_0.distcp" in "".join(problems)
