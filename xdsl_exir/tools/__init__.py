"""Tools of xdsl-exir."""
