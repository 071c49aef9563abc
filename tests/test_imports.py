"""The package's import structure: no import cycle among its modules, and no module imported inside a function.

Both are read from the source with :mod:`ast` (nothing is imported). A function-local import of a sibling module is
how an import cycle hides; third-party imports inside functions (optional or heavy dependencies) are allowed.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "regemb_utils"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imported(node: ast.AST, module: str, is_package: bool) -> list[str]:
    """The package's modules that ``node`` (an import statement in ``module``) imports."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "regemb_utils"]
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    if target.split(".")[0] != "regemb_utils":
        return []
    return [f"{target}.{a.name}" if f"{target}.{a.name}" in MODULES else target for a in node.names]


def imports(module: str) -> tuple[set[str], list[tuple[int, str]]]:
    """(the modules ``module`` imports, the (line, module) of each import inside a function or class)."""
    path = MODULES[module]
    tree = ast.parse(path.read_text(), filename=str(path))
    every, nested = set(), []

    def visit(node, inside):
        for child in ast.iter_child_nodes(node):
            found = imported(child, module, path.name == "__init__.py")
            every.update(found)
            if inside:
                nested.extend((child.lineno, name) for name in found)
            visit(child, inside or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))

    visit(tree, False)
    return every, nested


def test_the_parser_sees_the_package():
    edges, _ = imports("regemb_utils.classification.knn_runs")
    assert {"regemb_utils.infra.cache", "regemb_utils.classification.knn", "regemb_utils.text.documents"} <= edges
    assert len(MODULES) > 30


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_sibling_module_is_imported_inside_a_function(module):
    _, nested = imports(module)
    assert not nested, f"{module} imports inside a function or class: " + ", ".join(
        f"{name} (line {line})" for line, name in sorted(set(nested))
    )


def test_no_import_cycle():
    graph = {module: {m for m in imports(module)[0] if m in MODULES and m != module} for module in MODULES}
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module):
        state[module] = 1
        path.append(module)
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                cycle = path[path.index(target) :] + [target]
                pytest.fail("import cycle: " + " → ".join(cycle))
            if target not in state:
                visit(target)
        path.pop()
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)


# The layers, bottom first: a module imports only from its own layer and the layers below it.
LAYERS = (
    "infra",
    "text",
    "paper",
    "embeddings",
    "termsim",
    "measures",
    "classification",
    "book",
    "study",
    "chapters",
    "apps",
)


def layer(module: str) -> int:
    """The rank of ``module``'s layer (the package root, which only holds the version, is at the bottom)."""
    parts = module.split(".")
    return -1 if len(parts) == 1 else LAYERS.index(parts[1])


def test_every_subpackage_has_a_layer():
    assert {m.split(".")[1] for m in MODULES if m.count(".")} == set(LAYERS)


def test_no_layer_imports_a_layer_above_it():
    upward = sorted(
        f"{module} imports {target}"
        for module in MODULES
        for target in imports(module)[0]
        if target in MODULES and layer(target) > layer(module)
    )
    assert not upward, "imports upward: " + "; ".join(upward)
