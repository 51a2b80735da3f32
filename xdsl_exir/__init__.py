"""PyTorch's Export IR and TorchScript IR as xDSL dialects."""

__version__ = "0.1.0"
