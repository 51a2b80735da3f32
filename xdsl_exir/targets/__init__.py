"""Targets of xdsl-exir."""
