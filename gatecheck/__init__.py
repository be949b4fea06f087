"""gatecheck: static analysis of GPU architecture gates in Python ML code bases."""

__version__ = "0.1.0"
