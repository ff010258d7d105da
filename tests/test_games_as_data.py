"""Games as data (ARCHITECTURE.md, issue 19): code outside ``envs/`` never asks which game it is playing.

What agents/, train/, play/ and benchmarks/ need to know about a game comes from its engine's hooks
(``envs.core.game``) or its ``GameSpec`` (``envs.registry``). This test reads those folders with ``ast``
(nothing is imported) and fails naming ``file:line`` for each of:

| offence | example |
|---|---|
| a comparison with a game's name (or a plain player's alias, or a benchmark variant's label) | ``game == "briscola5"``, ``game in ("pigugnin", "picchetto")``, ``name.startswith("picchetto")`` |
| a per-game table: a dict keyed by game names, or a literal list of several games | ``{"briscola5": 32, "pigugnin": 40}``, ``("briscola5", "pigugnin", "picchetto")`` |
| an import of one game's modules, or a string naming one | ``from envs.briscola5.game import PASS``, ``"agents.legacy.batched_pigugnin_v1:..."`` |
| a name bound to a game's name, then compared | ``BRISCOLA = "briscola5"`` ... ``game == BRISCOLA`` |
| a lookup keyed by a game's name (the registry ``GAMES`` aside) | ``SCORERS["briscola5"]``, ``table.get("picchetto")`` |
| a phase or an action id written as a number | ``state.phase == 3``, ``32 <= action < 64``, ``action in range(32, 64)`` |
| an action id written as a number where moves are made or masked, or named | ``env.step(74)``, ``mask[32:64]``, ``legal[80]``, ``PASS_ACTION = 80`` |

Game-specific modules may know their game: the short list ``EXEMPT`` (``{game}`` is every registry
name), so a fourth game's modules named the same way are exempt too. The web page's script
(``play/static/*.html``) is read as text: it quotes no game's name. Left to review: a move held in a
one-letter name (``a >= 32``), and code outside these folders (``notebooks/``, ``docs/render_frames.py``,
which pick the positions they show).
"""

from __future__ import annotations

import ast
import re
from fnmatch import fnmatch
from pathlib import Path

import pytest

from envs.registry import GAMES

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("agents", "train", "play", "benchmarks")
#: modules that belong to one game ({game}: each registry name)
EXEMPT = (
    "agents/{game}_heuristic.py",
    "agents/{game}_bidding.py",
    "agents/batched/{game}.py",
    "agents/plain/{game}.py",
    "agents/legacy/{game}_heuristic_v1.py",
    "agents/legacy/batched_{game}_v1.py",
    "agents/search/{game}_*.py",
    "benchmarks/vector_{game}.py",
    "benchmarks/worlds_{game}.py",
    "benchmarks/{game}_roles.py",
    "benchmarks/{game}_contracts.py",
    "benchmarks/{game}_made.py",
)
#: the names a comparison must not test: the games, the plain players' aliases, the benchmark variants
NAMES = frozenset(GAMES) | {s.plain_alias for s in GAMES.values() if s.plain_alias} | {
    label for s in GAMES.values() for label in s.benchmark_variants()}
_GAME_MODULE = re.compile(r"\b(?:envs|agents)\.[\w.]*?(?:" + "|".join(map(re.escape, GAMES)) + r")")
_ACTION = re.compile(r"action|move")
#: names of the arrays indexed by action id (a literal index or slice bound in them is a hard-coded id)
_BY_ACTION = re.compile(r"mask|legal|action|logit")
_SMALL = (-1, 0, 1)  # "no action", an empty count, a single move: not ids


def exempt(rel: str) -> bool:
    return any(fnmatch(rel, pattern.format(game=game)) for pattern in EXEMPT for game in GAMES)


def _named(node: ast.AST) -> str | None:
    """The identifier of a Name or an Attribute (``state.phase`` -> ``phase``), through ``int(...)``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "int" and node.args:
        return _named(node.args[0])
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _constants(node: ast.AST) -> list:
    """The constant itself, or the constants of a literal tuple, list or set."""
    if isinstance(node, ast.Constant):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant)]
    return []


def _ints(node: ast.AST) -> list[int]:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        return [-node.operand.value] if type(node.operand.value) is int else []
    return [v for v in _constants(node) if type(v) is int]


def _range_ints(node: ast.AST) -> list[int]:
    """The int arguments of a ``range(...)`` call (``action in range(32, 64)``)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
        return [v for a in node.args for v in _ints(a)]
    return []


def _index_ints(node: ast.AST) -> list[int]:
    """The literal ints of a subscript: ``x[80]``, ``x[32:64]``, ``x[:, 40]``."""
    if isinstance(node, ast.Slice):
        return [v for part in (node.lower, node.upper) if part is not None for v in _ints(part)]
    if isinstance(node, ast.Tuple):
        return [v for e in node.elts for v in _index_ints(e)]
    return _ints(node)


def _game_name_aliases(tree: ast.AST) -> dict[str, str]:
    """Names assigned a game's name (``BRISCOLA = "briscola5"``): comparing with them compares with the name."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Constant) \
                and node.value.value in NAMES:
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(target, ast.Name):
                    out[target.id] = node.value.value
    return out


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def offences(source: str, where: str = "<source>") -> list[str]:
    """``where:line: what`` for every offence in ``source`` (see the module docstring)."""
    tree = ast.parse(source, where)
    docs = _docstrings(tree)
    aliases = _game_name_aliases(tree)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            names = [v for side in sides for v in _constants(side) if v in NAMES]
            names += [aliases[side.id] for side in sides if isinstance(side, ast.Name) and side.id in aliases]
            if names:
                found.append((line, f"compares with the name {names[0]!r}"))
            idents = [_named(side) or "" for side in sides]
            numbers = [v for side in sides for v in _ints(side) + _range_ints(side) if v not in _SMALL]
            if "phase" in idents and [v for side in sides for v in _ints(side) + _range_ints(side)]:
                found.append((line, "compares a phase with a number"))
            elif any(_ACTION.search(i) for i in idents) and numbers:
                found.append((line, f"compares an action with the number {numbers[0]}"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("startswith", "endswith", "get") and node.args:
            names = [v for v in _constants(node.args[0]) if v in NAMES]
            if names and node.func.attr == "get":
                found.append((line, f"looks up {names[0]!r} in a per-game table"))
            elif names:
                found.append((line, f"{node.func.attr}({names[0]!r})"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "step" \
                and node.args and [v for v in _ints(node.args[0]) if v not in _SMALL]:
            found.append((line, f"steps the action id {_ints(node.args[0])[0]}"))
        elif isinstance(node, ast.Subscript):
            keys = [v for v in _constants(node.slice) if v in NAMES]
            if keys and _named(node.value) != "GAMES":
                found.append((line, f"looks up {keys[0]!r} in a per-game table"))
            ids = [v for v in _index_ints(node.slice) if v not in _SMALL]
            if ids and _BY_ACTION.search(_named(node.value) or ""):
                found.append((line, f"indexes {_named(node.value)} with the action id {ids[0]}"))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None \
                and [v for v in _ints(node.value) if v not in _SMALL]:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            named = [t.id for t in targets if isinstance(t, ast.Name) and _ACTION.search(t.id.lower())]
            if named:
                found.append((line, f"names an action id: {named[0]} = {_ints(node.value)[0]}"))
        elif isinstance(node, ast.Dict):
            keys = [k.value for k in node.keys if isinstance(k, ast.Constant) and k.value in NAMES]
            if keys:
                found.append((line, f"a per-game table keyed by {keys[0]!r}"))
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            games = {v for v in _constants(node) if v in GAMES}
            if len(games) >= 2:
                found.append((line, f"a literal list of games {sorted(games)}"))
        elif isinstance(node, ast.match_case) and isinstance(node.pattern, ast.MatchValue):
            names = [v for v in _constants(node.pattern.value) if v in NAMES]
            if names:
                found.append((node.pattern.lineno, f"matches the name {names[0]!r}"))
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            hits = [m for m in modules if _GAME_MODULE.search(m)]
            if hits:
                found.append((line, f"imports {hits[0]}"))
        elif isinstance(node, ast.Import):
            hits = [a.name for a in node.names if _GAME_MODULE.search(a.name)]
            if hits:
                found.append((line, f"imports {hits[0]}"))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            hit = _GAME_MODULE.search(node.value)
            if hit:
                found.append((line, f"names the game module {hit.group(0)!r}"))
    return [f"{where}:{line}: {what}" for line, what in sorted(set(found))]


def scanned_files() -> list[Path]:
    files = []
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if not exempt(rel):
                files.append(path)
    return files


def test_no_module_outside_envs_asks_which_game_it_plays():
    found = []
    for path in scanned_files():
        found += offences(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix())
    assert not found, ("game facts outside envs/ (make them a GameSpec field or an engine hook, "
                       "docs/adding-a-game.md):\n" + "\n".join(found))


def test_the_web_page_names_no_game():
    """The page's script takes the games, their titles and flags from ``/api/meta`` (``play/web.py``)."""
    quoted = re.compile(r"""["'`](""" + "|".join(map(re.escape, NAMES)) + r""")["'`]""")
    found = []
    for path in sorted((ROOT / "play" / "static").glob("*.html")):
        for no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if quoted.search(line):
                found.append(f"{path.relative_to(ROOT).as_posix()}:{no}: {line.strip()}")
    assert not found, "the web page names a game:\n" + "\n".join(found)


@pytest.mark.parametrize(("source", "what"), [
    ('if game == "briscola5":\n    pass\n', "compares with the name 'briscola5'"),
    ('ok = game not in ("pigugnin", "x")\n', "compares with the name 'pigugnin'"),
    ('ok = spec in ("ducking", "greedy")\n', "compares with the name 'ducking'"),
    ('ok = name.startswith("picchetto")\n', "startswith('picchetto')"),
    ('WORLDS = {"briscola5": 32}\n', "a per-game table keyed by 'briscola5'"),
    ('GAMES = ("briscola5", "picchetto")\n', "a literal list of games"),
    ('match game:\n    case "pigugnin":\n        pass\n', "matches the name 'pigugnin'"),
    ("from envs.picchetto.game import PASS\n", "imports envs.picchetto.game"),
    ("from envs.briscola5 import worlds\n", "imports envs.briscola5"),
    ("import envs.pigugnin.batched\n", "imports envs.pigugnin.batched"),
    ('path = "agents.legacy.batched_pigugnin_v1:X"\n', "names the game module"),
    ("ok = state.phase == 3\n", "compares a phase with a number"),
    ("ok = s.phase in (2, 3)\n", "compares a phase with a number"),
    ("ok = 32 <= action < 64\n", "compares an action with the number 32"),
    ('BRISCOLA = "briscola5"\nok = game == BRISCOLA\n', "compares with the name 'briscola5'"),
    ('scorer = SCORERS["pigugnin"]\n', "looks up 'pigugnin' in a per-game table"),
    ('scorer = table.get("picchetto", None)\n', "looks up 'picchetto' in a per-game table"),
    ("ok = action in range(32, 64)\n", "compares an action with the number 32"),
    ("ok = move >= 80\n", "compares an action with the number 80"),
    ("ok = s.phase in range(2, 4)\n", "compares a phase with a number"),
    ("env.step(74)\n", "steps the action id 74"),
    ("bids = mask[81:141]\n", "indexes mask with the action id 81"),
    ("ok = legal[80]\n", "indexes legal with the action id 80"),
    ("x = action_mask[:, 40]\n", "indexes action_mask with the action id 40"),
    ("PASS_ACTION = 80\n", "names an action id: PASS_ACTION = 80"),
    ("ok = int(state.phase) == 2\n", "compares a phase with a number"),
])
def test_the_scan_finds_each_offence(source, what):
    found = offences(source)
    assert len(found) == 1 and what in found[0], found


def test_the_scan_lets_game_agnostic_code_through():
    source = '''"""A docstring may name envs.briscola5.game and "briscola5"."""
from envs.registry import game_spec
from envs.core.errors import ConfigError


def f(game, state, rules, actions, legal):
    spec = game_spec(game)
    if spec.zero_sum and rules.in_trick_play(state) and (actions < 0).any() and len(legal) > 1:
        return f"envs.{game}.worlds", game == spec.name, {"worlds": spec.search.pimc_worlds}
    default = "briscola5"
    spec = GAMES["briscola5"]
    first, rest = legal[0], mask[1:]
    no_action = -1
    env.step(legal[-1])
    return default
'''
    assert offences(source) == []


def test_exemptions_are_the_games_own_modules():
    assert exempt("agents/picchetto_heuristic.py") and exempt("agents/search/picchetto_endgame.py")
    assert exempt("agents/legacy/batched_briscola5_v1.py") and exempt("benchmarks/worlds_pigugnin.py")
    assert not exempt("agents/search/common.py") and not exempt("agents/registry.py")
    assert not exempt("benchmarks/strength.py") and not exempt("train/evaluation/core.py")
    # every exemption pattern matches a file of the repository (none is left over)
    files = [p.relative_to(ROOT).as_posix() for folder in FOLDERS for p in (ROOT / folder).rglob("*.py")]
    for pattern in EXEMPT:
        assert any(fnmatch(f, pattern.format(game=g)) for f in files for g in GAMES), pattern
