"""Document measures: representations over the common dictionary, the cosine, the L1 distance, the soft cosine
measure (SCM) and the Word Mover's Distance (WMD)."""
