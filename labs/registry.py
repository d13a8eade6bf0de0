"""The labs `python -m labs.run` knows: name -> one-line description. Each lab lives in `labs/<name>.py`.

Kept apart from the lab modules so that listing labs (and the bank's link check) does not import torch.
"""

LABS: dict[str, str] = {
    "fault_resume": "Kill, crash, preempt or corrupt a DDP job mid-run, resume it, and prove the resume bit-exact",
}
