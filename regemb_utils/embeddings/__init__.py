"""Word embeddings: the Word2Bits trainer with quantization, and the paper's two trained embeddings."""
