"""Frontends of xdsl-exir."""
