"""The harness every lab shares: launch, config, training loop, checkpoints, faults, verification, reports."""
