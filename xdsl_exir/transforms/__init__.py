"""
The passes of xdsl-exir. The registry of them by name is `xdsl_exir.transforms.registry`
(`get_all_passes`).
"""
