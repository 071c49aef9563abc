"""Term similarity: nearest-neighbour caches, the sparse term-similarity matrices S', their grid, and the
orthogonalized embeddings from S' by Cholesky (paper §4.2)."""
