"""What an artifact's key is made of: the content of its inputs (:func:`fingerprint`) and the code that computes it
(:func:`code_hash`), blind to where that code lives.

**The code of a computation.** Each artifact kind names the function that computes it (:func:`computes`). Its code
hash covers the source of that function and, recursively, of every function, class and module-level value of the
package that it names: each such name is replaced by the hash of what it refers to (a Merkle hash), never by the
name or the module it comes from. So

* moving or renaming a module, reordering, rewriting or removing import lines, and editing comments or docstrings
  change no key (imports are not hashed; docstrings are removed; comments are not in the syntax tree);
* a change to any function the computation reaches changes its key; a change to a function it never reaches (a
  figure, the paper's numbers when the computation does not read them) does not;
* a module-level number or string enters by its value; any other module-level value by the expression that defines
  it (``METHODS = {...}``: its syntax tree, names resolved the same way), found in the module that names it or by
  following that module's ``from x import name`` statements, so a value that a process changes later (a per-process
  cache) never moves a key, and neither do the other modules a process happens to have loaded;
* a hash is cached per process together with every namespace lookup it rests on, and recomputed when one of them
  changed (a function replaced at run time, then restored);
* names outside the package enter by their qualified name (``numpy.linalg.norm``, however it was imported);
* the plumbing of :mod:`regemb_utils.infra` (the cache, progress bars, processes) changes no result and enters as
  one constant;
* a function marked :func:`same_result_as` a reference hashes as that reference: a faster route to an exactly equal
  result (checked by the tests against the reference) keeps every stored result; a change to the reference, which
  defines the result, changes the keys of everything computed through either.

What is not covered: code reached only through an object passed in at run time (a parameter's methods); such inputs
carry their own ``identity`` (e.g. :class:`regemb_utils.termsim.sources.CachedMatrices`), and third-party library
versions.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import inspect
import sys
import textwrap
import threading
import types
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from scipy import sparse

__all__ = ["fingerprint", "code_hash", "computes", "computation", "same_result_as", "changes_no_result"]

PACKAGE = __name__.split(".")[0]
INFRA = __name__.rsplit(".", 1)[0]


# ----------------------------------------------------------------------------------------------------------------
# content


def _feed(digest, obj: Any) -> None:
    if isinstance(obj, np.ndarray):
        array = np.ascontiguousarray(obj)
        digest.update(f"ndarray{array.dtype.str}{array.shape}".encode())
        digest.update(array.view(np.uint8).reshape(-1) if array.size else b"")
    elif sparse.issparse(obj):
        matrix = sparse.csr_matrix(obj)
        matrix.sum_duplicates()
        matrix.sort_indices()
        digest.update(f"csr{matrix.shape}".encode())
        for part in (matrix.indptr.astype(np.int64), matrix.indices.astype(np.int64), matrix.data):
            _feed(digest, part)
    elif isinstance(obj, Mapping):
        digest.update(b"{")
        for key in sorted(obj, key=repr):
            _feed(digest, key)
            _feed(digest, obj[key])
        digest.update(b"}")
    elif isinstance(obj, (list, tuple)):
        digest.update(b"[")
        for item in obj:
            _feed(digest, item)
        digest.update(b"]")
    elif isinstance(obj, np.generic):
        _feed(digest, obj.item())
    elif obj is None or isinstance(obj, (bool, int, float, str, bytes)):
        digest.update(f"{type(obj).__name__}:{obj!r}".encode())
    elif hasattr(obj, "__dict__"):  # a dataclass or a plain object: its fields
        digest.update(type(obj).__qualname__.encode())
        _feed(digest, vars(obj))
    else:
        raise TypeError(f"cannot fingerprint a {type(obj).__name__}")


def fingerprint(*objects: Any) -> str:
    """A content hash of arrays, sparse matrices, mappings, sequences and scalars (for artifact keys).

    Parameters
    ----------
    *objects : object
        Arrays, sparse matrices, mappings (in key order), lists and tuples, NumPy and Python scalars, strings, None, and
        objects with a ``__dict__`` (their fields).

    Returns
    -------
    str
        24 hexadecimal digits of a SHA-256 over the objects' types, shapes and contents.

    Raises
    ------
    TypeError
        For an object it cannot hash.

    Examples
    --------
    >>> fingerprint(np.array([1, 2, 3])) == fingerprint(np.array([1, 2, 3]))
    True
    >>> fingerprint({"a": 1, "b": 2}) == fingerprint({"b": 2, "a": 1})
    True
    >>> fingerprint(np.array([1, 2, 3])) == fingerprint(np.array([1, 2, 4]))
    False
    """
    digest = hashlib.sha256()
    for obj in objects:
        _feed(digest, obj)
    return digest.hexdigest()[:24]


# ----------------------------------------------------------------------------------------------------------------
# which code computes what

_COMPUTING: dict[str, tuple[Callable, int]] = {}


def computes(kind: str, version: int = 1) -> Callable[[Callable], Callable]:
    """Declare the decorated function as the computation of the artifact kind ``kind``, whose stored format has
    ``version`` (bump it when what is stored changes: files, their layout). The kind's keys hash the function's code.

    Parameters
    ----------
    kind : str
        The artifact kind (the first part of its directory's name).
    version : int
        The version of its stored format.

    Returns
    -------
    callable
        A decorator that registers the function and returns it unchanged.

    Raises
    ------
    ValueError
        When another function already computes ``kind``.

    Examples
    --------
    >>> @computes("doctest-kind", version=2)
    ... def double(x):
    ...     return 2 * x
    >>> computation("doctest-kind") == (double, 2)
    True
    """

    def register(function: Callable) -> Callable:
        known = _COMPUTING.get(kind)
        if known is not None and (known[0].__module__, known[0].__qualname__) != (
            function.__module__,
            function.__qualname__,
        ):
            raise ValueError(
                f"the artifact kind {kind!r} is computed by {known[0].__module__}."
                f"{known[0].__qualname__}; {function.__module__}.{function.__qualname__} cannot compute "
                "it too"
            )
        _COMPUTING[kind] = function, version
        return function

    return register


def computation(kind: str) -> tuple[Callable, int]:
    """(the function declared with :func:`computes` to compute the artifact kind ``kind``, its format version).

    Parameters
    ----------
    kind : str
        An artifact kind.

    Returns
    -------
    (callable, int)
        The computing function and the format version.

    Raises
    ------
    KeyError
        When no imported module declares it.

    Examples
    --------
    >>> @computes("doctest-lookup", version=4)
    ... def halve(x):
    ...     return x / 2
    >>> computation("doctest-lookup")[1]
    4
    """
    try:
        return _COMPUTING[kind]
    except KeyError:
        known = ", ".join(sorted(_COMPUTING)) or "none"
        raise KeyError(
            f"unknown artifact kind {kind!r}: no imported function computes it (@computes({kind!r}) "
            f"declares one); known: {known}"
        ) from None


def same_result_as(reference: Callable | str) -> Callable[[Callable], Callable]:
    """Mark the decorated function as an exact, faster route to the result of ``reference`` (a function, or the name
    of one in the same module): its code hash is the reference's, so that speeding it up keeps stored results. The
    tests must check that both give equal results.

    Parameters
    ----------
    reference : callable or str
        The function that defines the result (or its name in the decorated function's module).

    Returns
    -------
    callable
        A decorator that marks the function and returns it.

    Examples
    --------
    >>> def slow(xs):
    ...     return sorted(xs)[:1]
    >>> @same_result_as(slow)
    ... def fast(xs):
    ...     return [min(xs)]
    >>> code_hash(fast) == code_hash(slow)
    True
    """

    def mark(function: Callable) -> Callable:
        function.__same_result_as__ = reference
        return function

    return mark


def changes_no_result(function: Callable) -> Callable:
    """Mark ``function`` (and return it) as one that changes no result (a warm-up, a timer): it hashes as one constant.

    Parameters
    ----------
    function : callable

    Returns
    -------
    callable

    Examples
    --------
    >>> code_hash(changes_no_result(lambda: print("warm"))) == code_hash(changes_no_result(lambda: 1))
    True
    """
    function.__changes_no_result__ = True
    return function


# ----------------------------------------------------------------------------------------------------------------
# code


def _unwrap(obj: Any) -> Any:
    obj = getattr(obj, "py_func", obj)  # a numba dispatcher: the Python function it compiles
    return inspect.unwrap(obj) if callable(obj) else obj


def _module_of(obj: Any) -> str:
    module = getattr(obj, "__module__", None)
    return module if isinstance(module, str) else ""


def _in(package: str, module: str) -> bool:
    return module == package or module.startswith(package + ".")


def _dunder(name: str) -> bool:  # __file__, __name__: where the module lives, not what it computes
    return name.startswith("__") and name.endswith("__")


_MISSING = object()
_SCALARS = (bool, int, float, complex, str, bytes, type(None))


class _Strip(ast.NodeTransformer):
    """Docstrings and import statements removed: neither changes what the code computes."""

    def _body(self, node):
        self.generic_visit(node)
        body = [statement for statement in node.body if not isinstance(statement, (ast.Import, ast.ImportFrom))]
        if (
            body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            body = body[1:]
        node.body = body or [ast.Pass()]
        return node

    visit_Module = visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _body


class _Hasher:
    """One code hash. Its memo holds the definitions hashed in this walk; ``lookups`` records every (module, name,
    object id) it read from a module's namespace, so that a cached hash can be checked against the namespaces later
    (a function replaced at run time, by a test's monkeypatch or by hand, is seen)."""

    _assignments: dict[str, dict[str, ast.expr]] = {}
    _imports: dict[str, dict[str, tuple[str, str]]] = {}

    def __init__(self):
        self.stack: list[Any] = []  # the definitions being hashed
        self.memo: dict[Any, str] = {}
        self.values: set[tuple[str, str]] = set()  # the (module, name) of the values being hashed
        self.lookups: set[tuple[str, str, int]] = set()

    def lookup(self, module: str, name: str) -> Any:
        value = vars(sys.modules[module]).get(name, _MISSING) if module in sys.modules else _MISSING
        self.lookups.add((module, name, id(value)))
        return value

    # -- definitions (functions and classes of the package) -----------------------------------------------------

    def definition(self, obj: Any) -> tuple[str, set[int]]:
        """(the hash of a package function or class, the ids of objects on the stack that it reached)."""
        obj = _unwrap(obj)
        reference = getattr(obj, "__same_result_as__", None)
        if reference is not None:
            if isinstance(reference, str):
                reference = self.lookup(obj.__module__, reference)
            return self.definition(reference)
        if _in(INFRA, _module_of(obj)):
            return "infra", set()
        if getattr(obj, "__changes_no_result__", False):
            return "no result", set()
        if obj in self.memo:
            return self.memo[obj], set()
        if any(obj is on for on in self.stack):
            return "recursion", {id(obj)}
        try:
            source = textwrap.dedent(inspect.getsource(obj))
        except (OSError, TypeError):  # not from a file (a builtin, a doctest's function): by its name
            return f"unreadable {_module_of(obj)}.{getattr(obj, '__qualname__', type(obj).__qualname__)}", set()
        self.stack.append(obj)
        try:
            tree = _Strip().visit(ast.parse(source))
            resolver = _Resolve(self, obj.__module__)
            tree = resolver.visit(tree)
            reached = resolver.reached - {id(obj)}
        finally:
            self.stack.pop()
        digest = hashlib.sha256(ast.dump(tree).encode()).hexdigest()
        if not reached:
            self.memo[obj] = digest
        return digest, reached

    # -- module-level values -------------------------------------------------------------------------------------

    @classmethod
    def _statements(cls, module: str) -> None:
        """A package module's top-level ``name = expression`` statements and ``from x import name`` imports."""
        if module in cls._assignments:
            return
        assigned, imported = {}, {}
        try:
            tree = ast.parse(inspect.getsource(sys.modules[module]))
        except (OSError, TypeError, KeyError):
            tree = ast.Module(body=[], type_ignores=[])
        is_package = getattr(sys.modules.get(module), "__path__", None) is not None
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                assigned[node.targets[0].id] = node.value
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                assigned[node.target.id] = node.value
            elif isinstance(node, ast.ImportFrom):
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)] if node.level else []
                source = ".".join(base + ([node.module] if node.module else []))
                for alias in node.names:
                    imported[alias.asname or alias.name] = (source, alias.name)
        cls._assignments[module], cls._imports[module] = assigned, imported

    def value(self, name: str, value: Any, module: str) -> tuple[str, set[int]]:
        """A package module-level value: a number or string by content; anything else by the expression that defines
        it, found in ``module`` or by following its ``from x import name`` statements; else by content."""
        if isinstance(value, _SCALARS):
            return "f" + fingerprint(value), set()
        for _ in range(10):  # module, name: where the value is defined, following imports
            self._statements(module)
            expression = self._assignments[module].get(name)
            if expression is not None and self.lookup(module, name) is value and (module, name) not in self.values:
                self.values.add((module, name))
                try:
                    resolver = _Resolve(self, module)
                    tree = resolver.visit(copy.deepcopy(expression))
                finally:
                    self.values.discard((module, name))
                if isinstance(tree, ast.Name) and tree.id.startswith("<"):  # an alias (X = module.X): what it names
                    return "=" + tree.id, resolver.reached
                return "e" + hashlib.sha256(ast.dump(tree).encode()).hexdigest(), resolver.reached
            if name not in self._imports[module]:
                break
            module, name = self._imports[module][name]
        try:
            return "f" + fingerprint(value), set()
        except TypeError:
            return "t" + type(value).__qualname__, set()

    # -- any object a name refers to -------------------------------------------------------------------------------

    def token(self, name: str, value: Any, module: str) -> tuple[str, set[int]]:
        if isinstance(value, types.ModuleType):
            return (
                "infra"
                if _in(INFRA, value.__name__)
                else f"module {value.__name__}"
                if not _in(PACKAGE, value.__name__)
                else "package module"
            ), set()
        target = _unwrap(value)
        origin = _module_of(target)
        if getattr(target, "__same_result_as__", None) is not None or (
            (inspect.isfunction(target) or inspect.isclass(target)) and _in(PACKAGE, origin)
        ):
            return self.definition(target)  # a stand-in declared to give a package function's results: as that one
        if _in(INFRA, origin) and (callable(target) or inspect.isclass(target)):
            return "infra", set()
        if _in(PACKAGE, module) and not (callable(value) or inspect.isclass(value)):
            return self.value(name, value, module)
        qualified = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
        if qualified is not None and not _in(PACKAGE, origin):
            return f"external {origin}.{qualified}", set()
        return self.value(name, value, module)


class _Resolve(ast.NodeTransformer):
    """Every name that refers to something outside the function replaced by a token of what it refers to."""

    def __init__(self, hasher: _Hasher, module: str):
        self.hasher, self.module = hasher, module
        self.namespace = vars(sys.modules[module])
        self.reached: set[int] = set()

    def _token(self, name: str, value: Any, module: str | None = None) -> str:
        token, reached = self.hasher.token(name, value, module or self.module)
        self.reached |= reached
        return token[1:] if token.startswith("=") else f"<{hashlib.sha256(token.encode()).hexdigest()[:32]}>"

    def visit_Name(self, node: ast.Name):
        if isinstance(node.ctx, ast.Load) and node.id in self.namespace and not _dunder(node.id):
            value = self.hasher.lookup(self.module, node.id)
            return ast.copy_location(ast.Name(id=self._token(node.id, value), ctx=node.ctx), node)
        return node

    def visit_Attribute(self, node: ast.Attribute):
        chain, base = [], node
        while isinstance(base, ast.Attribute):
            chain.append(base.attr)
            base = base.value
        if not (
            isinstance(base, ast.Name)
            and isinstance(base.ctx, ast.Load)
            and base.id in self.namespace
            and isinstance(self.namespace[base.id], types.ModuleType)
        ):
            return self.generic_visit(node)
        chain.reverse()
        value, used, owner = self.hasher.lookup(self.module, base.id), 0, self.module
        while (
            isinstance(value, types.ModuleType)
            and used < len(chain)
            and value.__name__ in sys.modules
            and hasattr(value, chain[used])
        ):  # module.name: the name in that module's namespace
            owner = value.__name__
            value, used = self.hasher.lookup(owner, chain[used]), used + 1
        result: ast.expr = ast.Name(id=self._token(chain[used - 1] if used else base.id, value, owner), ctx=ast.Load())
        for attribute in chain[used:]:
            result = ast.Attribute(value=result, attr=attribute, ctx=ast.Load())
        return ast.copy_location(result, node)


def code_hash(obj: Callable) -> str:
    """A hash of the code of the package function or class ``obj`` and of everything of the package it names
    (module docstring: what is covered and what is not).

    Parameters
    ----------
    obj : function or class
        A function or class of the package (a numba dispatcher or a decorated function: what it wraps).

    Returns
    -------
    str
        16 hexadecimal digits.

    Examples
    --------
    >>> from regemb_utils.text import tokenization
    >>> code_hash(tokenization.tokenize) == code_hash(tokenization.tokenize)
    True
    >>> code_hash(tokenization.tokenize) == code_hash(fingerprint)
    False
    """
    with _LOCK:  # threads (two models trained at once) share the cache
        known = _HASHES.get(obj)
        if known is not None and all(
            id(vars(sys.modules[m]).get(n, _MISSING) if m in sys.modules else _MISSING) == i for m, n, i in known[1]
        ):
            return known[0]
        hasher = _Hasher()
        digest, _ = hasher.definition(obj)
        digest = hashlib.sha256(digest.encode()).hexdigest()[:16]
        _HASHES[obj] = digest, frozenset(hasher.lookups)
    return digest


_LOCK = threading.Lock()
_HASHES: dict[Any, tuple[str, frozenset]] = {}  # obj -> (its hash, the namespace lookups it rests on)
