"""Play Mazzo's games as a person, and watch records again: the `mazzo` command and the web page.

| module           | job                                                                |
|------------------|--------------------------------------------------------------------|
| `play.session`   | one person at one seat against agents (what the seat may see)      |
| `play.terminal`  | `mazzo play` and `mazzo replay` in the terminal (rich)              |
| `play.web`       | `mazzo serve`: a Starlette app, one static page, a JSON API         |
| `play.cli`       | the `mazzo` command (`play`, `replay`, `serve`, `eval`, `train`)    |

Nothing under `envs/` imports this package. The web page needs the `play` extra
(`pip install -e ".[play]"`: starlette, uvicorn, rich).
"""
