"""Multi-GPU: DDP scaling across GPUs and its words."""
