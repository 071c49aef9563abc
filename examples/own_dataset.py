"""A data set of one's own, end to end: texts and labels, the paper's split, small embeddings trained on the book's
Wikipedia corpus, and four of chapter 4's methods with explicit settings.

    REGEMB_DATA=/path/to/regemb/data python examples/own_dataset.py

``REGEMB_DATA`` names the folder with the book's data files (only the Wikipedia corpus is read here); without it the
package looks beside its repository. Results go to the artifact cache (``REGEMB_CACHE``, by default the repository's
``artifacts/`` in a checkout, else the user's cache directory), so a second run is immediate.
"""
import random

from regemb_utils.study.cache import ArtifactCache
from regemb_utils.text.datasets import dataset_from_texts
from regemb_utils.embeddings.trained import trained_embeddings
from regemb_utils.classification.experiment import run_methods
from regemb_utils.classification.methods import Settings
from regemb_utils.study.results import error_table

# Short "documents" about three topics, drawn from a few words each (seeded): a data set the package does not ship.
TOPICS = {
    "music": "music song band album guitar concert singer rock piano orchestra opera jazz",
    "sport": "football match team season league player goal coach championship club tournament cup",
    "science": "physics chemistry theory energy atoms molecules experiment laboratory scientist research cells",
}
rng = random.Random(0)
texts, labels = [], []
for _ in range(40):
    for topic, words in TOPICS.items():
        texts.append(" ".join(rng.choices(words.split(), k=8) + rng.choices("the of and in a to was".split(), k=4)))
        labels.append(topic)

dataset = dataset_from_texts("topics", texts, labels, test_size=0.25)
cache = ArtifactCache()
training = dict(corpus_articles=300, tokenizer="paper", epochs=2, window=10, negative=24, sample=1e-4, min_count=5,
                workers=1, cache=cache)
vectors = {"32-bit": trained_embeddings("32-bit", size=50, **training)[0],
           "1-bit": trained_embeddings("1-bit", size=100, **training)[0]}
settings = Settings(
    ks=(1, 3, 5),
    sparse_grid=(("symmetric", (True,)), ("dominant", (True,)), ("idf", (True,)), ("nonzero_limit", (10, 40)),
                 ("threshold", (-1.0, 0.0)), ("exponent", (1.0, 4.0))),
    wmd_queries=(("topics", 12),),  # a seeded, stratified sample of the queries for the WMD
)
results = run_methods(dataset, ["bow", "soft_vsm", "soft_vsm_quantized_ortho", "wmd"], settings, vectors=vectors,
                      cache=cache)
table = error_table(results)[["dataset", "label", "k", "test documents", "error", "lower", "upper"]]
print(table.to_string(index=False, float_format="%.1f"))
