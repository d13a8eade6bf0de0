from labs.kata.catalog import Kata

KATA = Kata("one_f_one_b", "The 1F1B pipeline schedule, run on a real pipeline", "1F1B 流水线调度，在真实流水线上运行",
            nproc=4, questions=("code-1f1b-schedule-order", "pp-schedules-gpipe-1f1b"), order=6)
