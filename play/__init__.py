"""Play Mazzo's games as a person, and watch records again: the `mazzo` command and the web page.

| module           | job                                                                |
|------------------|--------------------------------------------------------------------|
| `play.session`   | one person at one seat against agents (what the seat may see)      |
| `play.moves`     | the moves as a person reads them: by trick, with winners, hand ends |
| `play.views`     | what a record viewer shows at each position of a record            |
| `play.terminal`  | `mazzo play` and `mazzo replay` in the terminal (rich, 80x24)       |
| `play.web`       | `mazzo serve`: a Starlette app, one static page, a JSON API         |
| `play.cli`       | the `mazzo` command (`play`, `replay`, `serve`, `eval`, `train`)    |

Nothing here asks which game it plays: the score columns, status lines, trick winners,
hand and episode headlines and the moves to confirm are the game's own
(`GameSpec.summary_module()`, `envs/<game>/summary.py`). Nothing under `envs/` imports this
package. The terminal and the web page need the `play` extra (`pip install 'mazzo[play]'`:
starlette, uvicorn, rich); each command says so in one line when it is missing.
"""
