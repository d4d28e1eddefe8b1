"""Training: the MLP step on CPU and GPU, its view (view), cost model (model), on-screen curves (screen) and words (words)."""
