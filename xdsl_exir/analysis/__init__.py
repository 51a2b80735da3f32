"""Analyses over xdsl-exir IR that passes share (alias analysis: `alias_db`)."""
