"""Katas (手撕): the user's own distributed-training code, judged by running it under torchrun.

    python -m labs.kata list
    python -m labs.kata start ring_allreduce          # writes the stub into ~/.kilogpu-prep/katas/
    python -m labs.kata check ring_allreduce          # runs that file on 2-4 ranks against the judge's cases
    python -m labs.kata reveal ring_allreduce         # the reference, only after an attempt

One folder per kata: `stub.py` (what the user starts from), `reference.py` (a solution that passes),
`cases.py` (the judge: adversarial cases run on every rank). `catalog` lists them without importing torch;
`harness` is what torchrun runs on each rank; `judge` launches it in a limited subprocess and reads back
each case's verdict.
"""
