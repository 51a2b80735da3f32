"""Helpers shared by the dialects, passes and tools."""
