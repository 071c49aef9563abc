"""Applications on the chapters' artifacts: the explorer."""
