"""A data set of one's own with the package's scikit-learn estimators: texts and labels, a seeded split, small
embeddings trained on the book's Wikipedia sample, five kNN classifiers, a grid search over S′'s C and k, and new
texts classified.

    REGEMB_DATA=/path/to/regemb/data python examples/own_dataset.py

``REGEMB_DATA`` names the folder with the book's data files (only the Wikipedia corpus is read, to train the
embeddings); without it the package looks beside its repository. Any gensim ``KeyedVectors`` (or a mapping word →
vector) serves instead. The trained embeddings are kept in the artifact cache passed explicitly below
(``REGEMB_CACHE``, by default the repository's ``artifacts/`` in a checkout, else the user's cache directory), so a
second run does not train them again; the classifiers keep nothing on disk.
"""

import random

import pandas as pd
from sklearn.model_selection import GridSearchCV, train_test_split

from regemb_utils.classification.estimators import (
    CosineClassifier,
    SoftCosineClassifier,
    TfidfL1Classifier,
    WMDClassifier,
)
from regemb_utils.embeddings.trained import trained_embeddings
from regemb_utils.infra.cache import ArtifactCache

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
train_texts, test_texts, train_labels, test_labels = train_test_split(
    texts, labels, test_size=0.25, random_state=0, stratify=labels
)

vectors, _ = trained_embeddings(
    "32-bit",
    size=50,
    corpus_articles=300,
    tokenizer="paper",
    epochs=2,
    window=10,
    negative=24,
    sample=1e-4,
    min_count=5,
    workers=1,
    cache=ArtifactCache(),
)
models = {
    "BoW": CosineClassifier(k=3),
    "TF-IDF L1": TfidfL1Classifier(k=3),
    "Soft VSM": SoftCosineClassifier(vectors, k=3),
    "Soft VSM (ortho.)": SoftCosineClassifier(vectors, k=3, orthogonalized=True, C=40, threshold=-1.0, exponent=4.0),
    "WMD": WMDClassifier(vectors, k=3),
}
rows = []
for name, model in models.items():
    model.fit(train_texts, train_labels)
    rows.append(
        {
            "method": name,
            "test error (%)": 100 * (1 - model.score(test_texts, test_labels)),
            "words without an embedding": getattr(model, "n_missing_words_", 0),
        }
    )
print(pd.DataFrame(rows).to_string(index=False, float_format="%.1f"))

search = GridSearchCV(
    SoftCosineClassifier(vectors, orthogonalized=True, threshold=-1.0, exponent=4.0),
    {"C": [10, 40], "k": [1, 3, 5]},
    cv=3,
).fit(train_texts, train_labels)
print("chosen by 3-fold cross-validation:", search.best_params_)
new = ["the band played a new song at the concert", "the team won the cup after a long season"]
print("new texts:", search.predict(new).tolist())
