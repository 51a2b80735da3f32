"""
Canonicalization patterns of our dialects, one module per dialect, as xDSL keeps
its own (`xdsl/transforms/canonicalization_patterns/`). The dialects' canonicalization
traits import these modules on first use, so loading a dialect never loads its
patterns, and the patterns may use the analyses (the alias analysis) above the dialects.
"""
