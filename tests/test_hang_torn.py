"""hang and torn_checkpoint: failures that do not kill a process cleanly, recovered and verified."""


from conftest import run_lab


def test_hang_is_detected_by_the_watchdog_and_names_the_stalled_rank(tmp_path):
    code, rep = run_lab(tmp_path, "hang", "--watchdog-s", "3", "--fault-rank", "1")
    assert code == 0, rep["checks"]
    hang = rep["hang"]
    assert hang["detector"] == "watchdog" and hang["stalled_ranks"] == [1] and hang["waiting_ranks"] == [0]
    assert "all_reduce" in hang["collective"] and "rank 1" in hang["diagnosis"]
    assert 3.0 <= hang["detection_s"] <= 4.5
    assert rep["restarts"] == 1 and rep["bit_exact"]


def test_torn_checkpoint_is_never_loaded(tmp_path):
    code, rep = run_lab(tmp_path, "torn_checkpoint", "--ckpt-mode", "sync")
    assert code == 0, rep["checks"]
    torn = rep["torn"]
    assert torn["torn_file"] == "step-000010.tmp/shared.pt.part"
    assert 0 < torn["bytes_written"] < torn["bytes_total"]
    assert torn["cleaned_folders"] == ["step-000010.tmp"] and torn["resumed_from"] == 5
    assert "PytorchStreamReader" in torn["naive_checkpoint"]
    assert rep["bit_exact"] and rep["lost_steps"] == 5
