"""hang and torn_checkpoint: failures that do not kill a process cleanly, recovered and verified."""


from conftest import run_lab


def test_hang_names_rank_collective_and_sequence_number_and_phase_markers_cannot(tmp_path):
    code, rep = run_lab(tmp_path, "hang", "--watchdog-s", "3", "--fault-rank", "1", "--controls")
    assert code == 0, rep["checks"]
    hang = rep["hang"]
    assert hang["detector"] == "watchdog" and hang["stalled_ranks"] == [1] and hang["waiting_ranks"] == [0]
    assert hang["collective"].startswith("all_reduce (DDP gradient bucket") and "rank 1" in hang["diagnosis"]
    assert hang["collective_seq"] == hang["stalled_issued"]["1"] + 1 > 1   # the one call rank 1 never made
    assert hang["monitored_barrier"]["missing_ranks"] == [1]              # gloo's own answer agrees
    assert 3.0 <= hang["detection_s"] <= 4.5
    assert rep["restarts"] == 1 and rep["bit_exact"]
    (control,) = rep["controls"]           # the same hang, phase-level markers: the collective check fails
    assert control["failed_as_designed"] and control["failed_checks"] == ["collective_named"]


def test_torn_checkpoint_is_never_loaded(tmp_path):
    code, rep = run_lab(tmp_path, "torn_checkpoint", "--ckpt-mode", "sync")
    assert code == 0, rep["checks"]
    torn = rep["torn"]
    assert torn["torn_file"] == "step-000010.tmp/__0_0.distcp"      # rank 0's DCP shard, cut before its commit
    assert 0 < torn["bytes_written"] < torn["bytes_total"]
    assert torn["cleaned_folders"] == ["step-000010.tmp"] and torn["resumed_from"] == 5
    assert "PytorchStreamReader" in torn["naive_checkpoint"]
    assert rep["bit_exact"] and rep["lost_steps_per_failure"] == rep["implied_lost_steps"]
    assert 5 <= rep["lost_steps"] <= rep["lost_steps_bound"]        # async: training went on while it was written
