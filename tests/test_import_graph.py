"""The project's own modules import each other without a cycle, and in one direction: envs <- agents <- train
(ARCHITECTURE.md: envs, agents, train, play; play sits beside train).

The graph is read from the source with ``ast`` (nothing is imported): every ``import`` and
``from ... import`` of a project module is an edge, at module level or inside a function (a
function-level import is how a cycle hides, until someone moves it to the top). An import of a
name from a package is an edge to the submodule when a submodule of that name exists, else to
the package. A module importing its own package is not counted: running ``pkg/__init__.py``
first is Python's doing, not a dependency the module chose.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("envs", "agents", "train", "play")


def _modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


def _resolve_relative(module: str, is_package: bool, level: int, target: str | None) -> str:
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (level - 1)] if level > 1 else base
    return ".".join([*base, *([target] if target else [])])


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve_relative(module, is_package, node.level, node.module) if node.level else node.module
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    targets.append(sub if sub in modules else base)
            for target in targets:
                # the deepest project module named by the import (``import envs.core.flags`` -> envs.core.flags)
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != module and not module.startswith(target + "."):
                    graph[module].add(target)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle as a list of modules (first == last), or None."""
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                return stack[stack.index(n):] + [n]
            if n not in state and (found := visit(n)):
                return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state and (found := visit(m)):
            return found
    return None


def test_the_graph_is_read():
    graph = import_graph()
    assert "train.evaluation.core" in graph["train.evaluation.rating"]
    assert "envs.registry" in graph["agents.registry"]
    assert "agents.trained" in graph["agents.registry"]  # a function-level import counts


def test_no_import_cycle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_cycle_finder_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


#: what each package may not import: the games know no players, the players know no trainers
FORBIDDEN = {"envs": ("agents", "train", "play"), "agents": ("train", "play")}


def test_dependencies_point_one_way():
    graph = import_graph()
    wrong = sorted(f"{m} -> {t}" for m, targets in graph.items() for t in targets
                   if any(t == f or t.startswith(f + ".") for f in FORBIDDEN.get(m.split(".")[0], ())))
    assert not wrong, "imports against the layering (envs <- agents <- train): " + ", ".join(wrong)
    assert "agents.rows" in graph["train.batched.learner"]  # the trainers use the players' row adapters
