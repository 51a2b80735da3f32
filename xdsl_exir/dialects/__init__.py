"""
The dialects of xdsl-exir. The registry of them by name is `xdsl_exir.dialects.registry`
(`get_all_dialects`).
"""
