"""The artifact cache: what one chapter computes and another reads.

An artifact is a directory ``<root>/<name>-<key>``, where the key hashes the parameters that produced it and the
package version. It is written into a temporary directory beside it and renamed into place only when complete, so
an interrupted run never leaves a directory that a later run would read as a whole artifact.
"""
from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import __version__

REPOSITORY = Path(__file__).resolve().parents[1]
DEFAULT_ROOT = REPOSITORY / "artifacts"


def default_root() -> Path:
    """``$REGEMB_CACHE`` if set, else ``artifacts/`` in the repository (git-ignored)."""
    return Path(os.environ.get("REGEMB_CACHE", DEFAULT_ROOT))


def artifact_key(name: str, params: dict[str, Any]) -> str:
    blob = json.dumps({"name": name, "params": params, "version": __version__}, sort_keys=True, default=repr)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def save_pickle(obj: Any, directory: Path) -> None:
    with open(directory / "artifact.pkl", "wb") as f:
        pickle.dump(obj, f, protocol=pickle.HIGHEST_PROTOCOL)


def load_pickle(directory: Path) -> Any:
    with open(directory / "artifact.pkl", "rb") as f:
        return pickle.load(f)


class ArtifactCache:
    def __init__(self, root: str | os.PathLike | None = None):
        self.root = Path(root) if root is not None else default_root()

    def path(self, name: str, params: dict[str, Any]) -> Path:
        return self.root / f"{name}-{artifact_key(name, params)}"

    def has(self, name: str, params: dict[str, Any]) -> bool:
        return self.path(name, params).is_dir()

    def get(
        self,
        name: str,
        params: dict[str, Any],
        compute: Callable[[], Any],
        save: Callable[[Any, Path], None] = save_pickle,
        load: Callable[[Path], Any] = load_pickle,
    ) -> Any:
        """Load artifact ``name`` made with ``params``; compute, save atomically and return it if absent."""
        target = self.path(name, params)
        if target.is_dir():
            return load(target)
        value = compute()
        self.root.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=self.root))
        try:
            save(value, staging)
            (staging / "params.json").write_text(json.dumps(params, sort_keys=True, default=repr, indent=1))
            try:
                os.rename(staging, target)
            except OSError:  # another process finished the same artifact first; theirs is as good as ours
                if not target.is_dir():
                    raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return value
