"""Interpreters of xdsl-exir."""
