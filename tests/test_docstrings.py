"""The examples in the package's docstrings run and print what they show (doctest), and the functions a user calls
first document their parameters, return value and an example (numpydoc sections)."""
import doctest
import importlib
import inspect
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MODULES = sorted(".".join(p.relative_to(ROOT).with_suffix("").parts) for p in (ROOT / "regemb_utils").rglob("*.py")
                 if p.name != "__init__.py")

# The library's entry points, layer by layer: each has Parameters, Returns and Examples sections.
DOCUMENTED = {
    "text.tokenization": ["tokenize"],
    "text.datasets": ["dataset_from_texts", "load_dataset"],
    "text.documents": ["prepare_documents", "query_rows", "stratified_order"],
    "text.corpus": ["corpus_dictionary", "corpus_statistics"],
    "measures.representations": ["bow_matrix", "represent"],
    "measures.similarity": ["cosine_similarity", "embedding_matrix", "dense_scm", "sparse_scm", "similarity_matrix"],
    "measures.wmd": ["wmd", "wmd_knn"],
    "termsim.matrix": ["term_similarity_matrix"],
    "termsim.orthogonalization": ["neighbour_depth"],
    "termsim.sources": ["restricted"],
    "termsim.cholesky": ["orthogonalized_embeddings", "inner_product_errors"],
    "classification.knn": ["top_k", "knn_votes"],
    "classification.selection": ["parameter_grid", "evaluate_grid", "select_grid"],
    "classification.statistics": ["agresti_coull", "mcnemar_exact"],
    "classification.methods": ["represent_pair"],
    "classification.wmd_samples": ["query_limit"],
    "classification.knn_runs": ["classify"],
    "classification.estimators": ["as_keyed_vectors"],
    "classification.experiment": ["training_dictionary", "run_methods"],
}


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    for test in finder.find(module, name, globs=vars(module).copy()):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} docstring examples of {name} failed"


@pytest.mark.parametrize("module, name", [(m, n) for m, names in DOCUMENTED.items() for n in names])
def test_entry_points_have_numpydoc_sections(module, name):
    doc = inspect.getdoc(getattr(importlib.import_module(f"regemb_utils.{module}"), name))
    for section in ("Parameters", "Returns", "Examples"):
        assert f"\n{section}\n{'-' * len(section)}\n" in doc, f"{module}.{name} has no {section} section"


def test_the_api_reference_documents_every_module():
    page = (ROOT / "api.md").read_text()
    missing = [name for name in MODULES if f".. automodule:: {name}\n" not in page]
    assert not missing, f"api.md does not document {missing}"
