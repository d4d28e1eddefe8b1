"""Multi-GPU training step with DistributedDataParallel (seed 002), launched through torchrun.

Seed 002 found that 2 GPUs pay off only at large batches. The reason: every step, each GPU
computes gradients on its own share of the data, then all GPUs average their gradients with an
all-reduce. The gradient is as big as the model whatever the batch, so the all-reduce is a fixed
cost per step that only enough work per step can hide.

    workload   the Workload: settings, FLOP/byte/memory estimates, one result row per point
    models     the MLP / CNN, the synthetic batches and the optimizer every rank builds alike
    efficiency scaling efficiency of ddp rows; one machine's runs merged into one pack
    launch     the torchrun launch: child environment (NCCL-safe), timeouts, stopping, rank 0's JSON
    worker     one process of a measurement (run by torchrun as `-m lib.workloads.ddp.worker`)
    demo       the multi-GPU page's live demo

The registry (lib.workloads) takes WORKLOAD from here.
"""

from lib.workloads.ddp.workload import WORKLOAD, DDPTraining

__all__ = ["WORKLOAD", "DDPTraining"]
