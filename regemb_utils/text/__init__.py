"""Text and data sets: tokenization, the six vendored data sets, the training corpus, data-set statistics and a
data set's documents over the common dictionary."""
