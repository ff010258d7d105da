"""`mazzo serve`: a small ASGI app (Starlette) serving one static page and a JSON API.

The server holds every game; a page receives only its seat's view (`Session.view`), its legal
actions and the moves since its last action, never another seat's cards. Records come back
redacted for the seat (`envs.records.redact`).

| method and path                 | body                                       | answer                          |
|---------------------------------|--------------------------------------------|---------------------------------|
| `GET /`                         |                                            | the page                        |
| `GET /api/meta`                 |                                            | games (title, seats, flags), opponents |
| `POST /api/setup`               | `{game, flags}`                            | `{num_players, flags}` (resolved); 400 names a bad flag |
| `POST /api/games`               | `{game, seat, opponents, seed, flags}`     | `{id, view}` (201)              |
| `GET /api/games/{id}`           |                                            | `{id, view}`                    |
| `POST /api/games/{id}/actions`  | `{action}` (an action id)                  | `{id, view}`                    |
| `GET /api/games/{id}/record`    |                                            | the record, redacted for the seat |
| `POST /api/records/view?seat=N` | a record (JSON)                            | `{frames, summary, result, ...}`: what a viewer shows at each position (`play.views`) |

Errors are JSON `{"error": text}`: 400 for malformed input (and, for an action, the list
`legal` of legal actions), 409 for an action that is not legal now (with `legal`; the game is
unchanged), 404 for an unknown game id. At most `MAX_GAMES` games are kept (the oldest goes).
"""

from __future__ import annotations

import json
import secrets
import threading
from collections import OrderedDict
from importlib import resources
from importlib.util import find_spec
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from envs import records
from envs.core.errors import IllegalActionError, MazzoError
from envs.registry import GAMES, game_spec
from play.session import Session, record_summary
from play.views import frames as record_frames

__all__ = ["create_app", "MAX_GAMES"]

MAX_GAMES = 500


def _error(status: int, text: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"error": text, **extra}, status_code=status)


def _page() -> str:
    return resources.files("play").joinpath("static/index.html").read_text(encoding="utf-8")


def _seat_counts(spec: Any) -> list[int]:
    """Every number of seats the game's flags allow (a flag with a list of allowed values may change it)."""
    counts = {spec.num_players()}
    for f in spec.engine_class().FLAGS:
        for value in f.allowed or ():
            try:
                counts.add(spec.num_players({f.name: value}))
            except MazzoError:
                pass  # a value that needs other flags changed too
    return sorted(counts)


def _meta() -> dict[str, Any]:
    games = {}
    for name, spec in GAMES.items():
        engine = spec.engine_class()
        summary = spec.summary_module()
        games[name] = {
            "title": summary.TITLE,
            "about": summary.ABOUT,
            "num_players": spec.num_players(),
            "seat_counts": _seat_counts(spec),
            "flags": [
                {"name": f.name, "default": f.default, "doc": f.doc,
                 "allowed": list(f.allowed) if f.allowed is not None else f.allowed_text}
                for f in engine.FLAGS
            ],
        }
    opponents = ["heuristic", "random"]
    if find_spec("torch") is not None:
        opponents.append("pretrained")
    return {"games": games, "opponents": opponents}


class _Games:
    """The games in play: id -> (session, lock), oldest first."""

    def __init__(self, limit: int = MAX_GAMES):
        self.limit = limit
        self._lock = threading.Lock()
        self._games: OrderedDict[str, tuple[Session, threading.Lock]] = OrderedDict()

    def add(self, session: Session) -> str:
        gid = secrets.token_urlsafe(9)
        with self._lock:
            self._games[gid] = (session, threading.Lock())
            while len(self._games) > self.limit:
                self._games.popitem(last=False)
        return gid

    def get(self, gid: str) -> tuple[Session, threading.Lock] | None:
        with self._lock:
            return self._games.get(gid)


async def _json_body(request: Request) -> Any:
    raw = await request.body()
    try:
        return json.loads(raw or b"null")
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"the body is not JSON: {e}") from None


def _games(request: Request) -> _Games:
    return request.app.state.games


async def _page_route(request: Request) -> Response:
    return HTMLResponse(_page())


async def _meta_route(request: Request) -> Response:
    return JSONResponse(request.app.state.meta)


async def _setup(request: Request) -> Response:
    try:
        body = await _json_body(request)
    except ValueError as e:
        return _error(400, str(e))
    if not isinstance(body, dict) or not isinstance(body.get("flags", {}), dict):
        return _error(400, "the body must be a JSON object {game, flags} (flags: an object of flag: value)")
    try:
        spec = game_spec(body.get("game"))
        flags = spec.resolve_flags(body.get("flags") or {})
        return JSONResponse({"num_players": spec.num_players(flags), "flags": records.plain(flags)})
    except (MazzoError, TypeError) as e:
        return _error(400, str(e))


async def _new_game(request: Request) -> Response:
    try:
        body = await _json_body(request)
    except ValueError as e:
        return _error(400, str(e))
    if not isinstance(body, dict):
        return _error(400, "the body must be a JSON object {game, seat, opponents, seed, flags}")
    unknown = sorted(set(body) - {"game", "seat", "opponents", "seed", "flags"})
    if unknown:
        return _error(400, f"unknown key(s) {', '.join(map(repr, unknown))}; known: game, seat, opponents, seed, flags")
    flags = body.get("flags") or {}
    if not isinstance(flags, dict):
        return _error(400, f"'flags' must be an object of flag: value; got {flags!r}")
    try:
        session = Session(body.get("game"), seat=body.get("seat", 0), opponents=body.get("opponents"),
                          seed=body.get("seed"), flags=flags)
    except (MazzoError, TypeError) as e:  # TypeError: e.g. a flag of the wrong type
        return _error(400, str(e))
    gid = _games(request).add(session)
    return JSONResponse({"id": gid, "view": session.view()}, status_code=201)


def _find(request: Request) -> tuple[Session, threading.Lock] | Response:
    found = _games(request).get(request.path_params["gid"])
    if found is None:
        return _error(404, f"no game {request.path_params['gid']!r} (unknown id, or too old and dropped)")
    return found


async def _show(request: Request) -> Response:
    found = _find(request)
    if isinstance(found, Response):
        return found
    session, lock = found
    with lock:
        return JSONResponse({"id": request.path_params["gid"], "view": session.view()})


def _act_now(session: Session, lock: threading.Lock, body: Any, gid: str) -> Response:
    with lock:
        if not isinstance(body, dict) or set(body) != {"action"}:
            return _error(400, "the body must be {\"action\": <action id>}", legal=session.legal())
        try:
            session.act(body["action"])
        except IllegalActionError as e:
            return _error(409, str(e), legal=session.legal())
        return JSONResponse({"id": gid, "view": session.view()})


async def _act(request: Request) -> Response:
    found = _find(request)
    if isinstance(found, Response):
        return found
    session, lock = found
    try:
        body = await _json_body(request)
    except ValueError as e:
        with lock:
            return _error(400, str(e), legal=session.legal())
    # the bots may think for a while (a trained policy): off the event loop
    return await run_in_threadpool(_act_now, session, lock, body, request.path_params["gid"])


async def _record(request: Request) -> Response:
    found = _find(request)
    if isinstance(found, Response):
        return found
    session, lock = found

    def build() -> dict:
        with lock:
            return session.record(redacted=True)

    rec = await run_in_threadpool(build)
    name = f"{session.game}-seat{session.seat}.mazzo.json"
    return JSONResponse(rec, headers={"Content-Disposition": f'attachment; filename="{name}"'})


def _record_view(rec: Any, seat: int | None) -> dict:
    """What the viewer shows of a posted record: its frames for ``seat``, the summary and the result rows."""
    frames = record_frames(rec, seat)
    summary = record_summary(rec)
    return {
        "game": rec["game"], "title": game_spec(rec["game"]).summary_module().TITLE,
        "num_players": rec["num_players"], "players": rec.get("players"),
        "redacted_for": rec.get("redacted_for"), "seat": rec.get("redacted_for", seat),
        "frames": frames, "over": rec.get("over"), "summary": summary,
        "result": None if summary is None else summary["rows"],
    }


async def _view_record(request: Request) -> Response:
    try:
        rec = await _json_body(request)
    except ValueError as e:
        return _error(400, str(e))
    seat = request.query_params.get("seat")
    try:
        seat_no = None if seat in (None, "", "all") else int(seat)
    except ValueError:
        return _error(400, f"seat must be a seat number or 'all'; got {seat!r}")
    try:
        return JSONResponse(await run_in_threadpool(_record_view, rec, seat_no))
    except (MazzoError, KeyError, TypeError) as e:
        return _error(400, f"cannot show this record: {e}")


def create_app(max_games: int = MAX_GAMES) -> Starlette:
    """The app: the routes of the module table; ``app.state.games`` holds the games in play."""
    app = Starlette(routes=[
        Route("/", _page_route),
        Route("/api/meta", _meta_route),
        Route("/api/setup", _setup, methods=["POST"]),
        Route("/api/games", _new_game, methods=["POST"]),
        Route("/api/games/{gid}", _show),
        Route("/api/games/{gid}/actions", _act, methods=["POST"]),
        Route("/api/games/{gid}/record", _record),
        Route("/api/records/view", _view_record, methods=["POST"]),
    ])
    app.state.games = _Games(max_games)
    app.state.meta = _meta()
    return app
