"""YAML configs and command-line overrides for the training scripts' ``Args`` dataclasses.

A config file's keys mirror the fields of ``Args``; game flags go under ``env:``. Any field can
be overridden on the command line, after ``--config``:

    python -m train --config configs/briscola5/ppo.yaml --total_timesteps 20000 --env.num_hands 2

| source                      | example                        | how the value is read              |
|-----------------------------|--------------------------------|------------------------------------|
| YAML file                   | ``learning_rate: 3.0e-4``      | YAML                               |
| ``--key value``/``--key=value`` | ``--seed 3``               | YAML scalar (``true``, ``null``, ``[a, b]``); str fields keep the text |
| ``--env.FLAG value``        | ``--env.num_players 5``        | YAML scalar, into the ``env`` dict  |
| ``--help``                  |                                | every field with its default and docstring |

``engine`` is read as ``trainer`` (its older name, ``ALIASES``), or beside ``trainer: rllib`` as ``env_engine``
(``canonical``). Unknown keys and values of the wrong type raise ``ConfigError`` naming the key, the file and
what is allowed, before anything is built. Field docs come from the docstring under each field.
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import inspect
import textwrap
import types
import typing
from pathlib import Path
from typing import Any

import yaml

from envs.core.errors import ConfigError

__all__ = ["field_docs", "load_config", "parse_args", "help_text", "to_dict", "canonical", "ALIASES", "read_yaml", "split_argv"]


def field_docs(cls: type) -> dict[str, str]:
    """``{field: docstring}`` from the string literal under each field of a dataclass and of its dataclass bases
    (a subclass that redeclares a field with a docstring gives it its own)."""
    docs: dict[str, str] = {}
    for klass in reversed([k for k in cls.__mro__ if dataclasses.is_dataclass(k)]):
        tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        body = tree.body[0].body
        for node, nxt in zip(body, body[1:], strict=False):
            if (
                isinstance(node, ast.AnnAssign)
                and isinstance(node.target, ast.Name)
                and isinstance(nxt, ast.Expr)
                and isinstance(nxt.value, ast.Constant)
                and isinstance(nxt.value.value, str)
            ):
                docs[node.target.id] = " ".join(nxt.value.value.split())
    return docs


#: older names of config keys, read as the new ones (the run folders of earlier versions keep working)
ALIASES = {"engine": "trainer"}


#: RLlib's env runners step one of these engines (``env_engine``); an RLlib config may say ``engine`` for it
ENV_ENGINES = ("aec", "batched")


def canonical(config: dict[str, Any], beside: str | None = None) -> dict[str, Any]:
    """A config dict with the older key names (``ALIASES``) renamed.

    ``engine`` is the older name of ``trainer``, except beside ``trainer: rllib``, where ``engine: aec|batched``
    is what RLlib's env runners step (``env_engine``). Beside another trainer, ``engine`` may only repeat it.
    ``beside``: the trainer of the file that command-line overrides go over."""
    out = {ALIASES.get(k, k): v for k, v in config.items() if k != "engine"}
    if "engine" not in config:
        return out
    engine = config["engine"]
    trainer = config.get("trainer", beside)
    if trainer is None or ("trainer" not in config and trainer != "rllib"):
        out["trainer"] = engine
    elif trainer == "rllib" and engine in ENV_ENGINES:
        if out.setdefault("env_engine", engine) != engine:
            raise ConfigError(f"'engine: {engine}' and 'env_engine: {out['env_engine']}' disagree; give one of them "
                              f"(for trainer rllib, engine is what the env runners step: {', '.join(ENV_ENGINES)})")
    elif engine != trainer:
        raise ConfigError(f"'engine: {engine}' and 'trainer: {trainer}' disagree: engine is the older name "
                          f"of trainer (beside trainer: rllib it is what the env runners step: "
                          f"{', '.join(ENV_ENGINES)})")
    return out


def _allowed_types(tp: Any) -> tuple[type, ...]:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return tuple(t for a in typing.get_args(tp) for t in _allowed_types(a))
    if tp is type(None):
        return (type(None),)
    return ((origin or tp),)


def _type_name(types_: tuple[type, ...]) -> str:
    return " or ".join("null" if t is type(None) else t.__name__ for t in types_)


def _check_value(cls: type, key: str, value: Any, where: str) -> Any:
    hints = typing.get_type_hints(cls)
    allowed = _allowed_types(hints[key])
    if isinstance(value, str) and str not in allowed:
        # PyYAML reads 1e-3 (no dot) as a string: accept numbers written that way.
        for kind in (int, float):
            if kind in allowed:
                try:
                    value = kind(value)
                    break
                except ValueError:
                    pass
    if float in allowed and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    ok = isinstance(value, allowed) and not (isinstance(value, bool) and bool not in allowed)
    if not ok:
        raise ConfigError(f"{where}: invalid value {value!r} for '{key}': expected {_type_name(allowed)}")
    return value


def _unknown(key: str, known: list[str], where: str) -> ConfigError:
    close = difflib.get_close_matches(key, known, n=1)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    return ConfigError(f"{where}: unknown config key '{key}'{hint} known keys: {', '.join(known)}")


def read_yaml(path: str | Path) -> dict[str, Any]:
    """A config file's mapping, older key names renamed (``canonical``); ``ConfigError`` if it is none."""
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"config file not found: {str(path)!r}")
    try:
        loaded = yaml.safe_load(p.read_text()) or {}
    except yaml.YAMLError as e:
        raise ConfigError(f"{p} is not YAML: {e}") from None
    if not isinstance(loaded, dict):
        raise ConfigError(f"{p}: a config file must be a mapping of keys to values; got {type(loaded).__name__}")
    return canonical(loaded)


def _same_trainer(cls: type, values: dict[str, Any], where: str) -> None:
    """A config for another trainer is refused first (its keys would be reported unknown, one by one)."""
    own = {f.name: f.default for f in dataclasses.fields(cls)}.get("trainer")
    if isinstance(own, str) and values.get("trainer", own) != own:
        raise ConfigError(f"{where}: invalid value {values['trainer']!r} for 'trainer': these are the Args of the "
                          f"{own!r} trainer (python -m train --config FILE runs the trainer a config names)")


def load_config(cls: type, path: str | Path | None = None, overrides: dict[str, Any] | None = None) -> Any:
    """An ``Args`` from a YAML file (optional) and a dict of overrides (``"env.FLAG"`` keys allowed)."""
    names = [f.name for f in dataclasses.fields(cls)]
    values: dict[str, Any] = {}
    if path is not None:
        p = Path(path)
        loaded = read_yaml(p)
        _same_trainer(cls, {**loaded, **canonical(overrides or {}, beside=loaded.get("trainer"))}, str(p))
        for key, value in loaded.items():
            if key not in names:
                raise _unknown(str(key), names, str(p))
            values[key] = _check_value(cls, key, value, str(p))
    flags: dict[str, Any] = {}
    for key, value in canonical(overrides or {}, beside=values.get("trainer")).items():
        if key.startswith("env."):
            flags[key[4:]] = value
            continue
        if key not in names:
            raise _unknown(key, names, "command line")
        values[key] = _check_value(cls, key, value, "command line")
    if "env" in names:  # an ``env`` override replaces the file's mapping; ``env.FLAG`` keys go on top of either
        values["env"] = {**(values.get("env") or {}), **flags}
    return cls(**values)


def _cli_value(cls: type, key: str, text: str) -> Any:
    if not key.startswith("env.") and key in {f.name for f in dataclasses.fields(cls)}:
        allowed = _allowed_types(typing.get_type_hints(cls)[key])
        if allowed == (str,):
            return text
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return text


def help_text(cls: type, prog: str) -> str:
    """``--help``: every field, its default and its docstring."""
    docs = field_docs(cls)
    lines = [f"usage: {prog} [--config FILE.yaml] [--KEY VALUE ...] [--env.FLAG VALUE ...]", "", "options:"]
    for f in dataclasses.fields(cls):
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
        lines.append(f"  --{f.name} (default: {default!r})")
        lines.append(textwrap.fill(docs.get(f.name, ""), 100, initial_indent=" " * 6, subsequent_indent=" " * 6))
    return "\n".join(lines)


def split_argv(argv: list[str]) -> tuple[str | None, dict[str, str], bool]:
    """``--config FILE`` and ``--key value`` (or ``--key=value``) -> ``(FILE, {key: text}, --help given)``; keys as
    fields are spelled (``--num-env-runners`` is ``num_env_runners``; ``--env.FLAG`` stays as it is)."""
    config: str | None = None
    texts: dict[str, str] = {}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg in ("-h", "--help"):
            return config, texts, True
        if not arg.startswith("--") or len(arg) == 2:
            raise ConfigError(f"command line: expected --KEY VALUE, got {arg!r} (see --help)")
        key, eq, text = arg[2:].partition("=")
        if not eq:
            if i + 1 >= len(argv) or argv[i + 1].startswith("--"):
                raise ConfigError(f"command line: --{key} needs a value")
            text = argv[i + 1]
            i += 1
        i += 1
        key = key.replace("-", "_") if not key.startswith("env.") else key
        if key == "config":
            config = text
        else:
            texts[key] = text
    return config, texts, False


def parse_args(cls: type, argv: list[str], prog: str = "train") -> Any:
    """``--config FILE`` plus ``--key value`` overrides -> ``Args``; prints help and exits on ``--help``."""
    config, texts, wants_help = split_argv(argv)
    if wants_help:
        print(help_text(cls, prog))
        raise SystemExit(0)
    overrides = {key: _cli_value(cls, ALIASES.get(key, key), text) for key, text in texts.items()}
    return load_config(cls, config, overrides)


def to_dict(args: Any) -> dict[str, Any]:
    """The ``Args`` as a plain dict (what a config file holds)."""
    return dataclasses.asdict(args)
