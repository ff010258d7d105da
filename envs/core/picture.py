"""Drawing primitives of ``render_mode="rgb_array"``: a card table in the web page's look.

Each game's ``envs/<game>/picture.py`` lays out its table with these pieces, from the seat's
observation only (``decode(obs)``), so a frame cannot show a hidden card. The colours and
sizes are those of the web page (``play/static/index.html``):

| piece                         | draws                                                  | web page                |
|-------------------------------|--------------------------------------------------------|-------------------------|
| ``Table(width, height)``      | the felt (radial gradient); ``array()`` -> ``uint8[H, W, 3]`` | ``.table``       |
| ``status(text)``              | the status pill, top left                              | ``#status``             |
| ``box(x, y, w, h, title)``    | a translucent box with an upper-case title             | ``.box``, ``.box h3``   |
| ``seat(...)``                 | a seat: name, small lines, one back per card held      | ``.seat`` (``.you``, ``.acting``) |
| ``cards(x, y, codes, ...)``   | a row of card faces (legal ones raised in gold, the others dimmed) | ``.card``, ``.card.small`` |
| ``played(x, y, code, label)`` | a small card with its player's name under it            | ``.played``             |
| ``backs(x, y, count)``        | overlapping card backs                                  | ``.back``               |
| ``text(x, y, text, ...)``     | text in Pillow's built-in font                          |                         |

Cards and backs are sprites drawn four times larger and reduced (smooth edges), made once per
look and cached. The font is Pillow's built-in one (``ImageFont.load_default(size)``, Pillow >=
10.1), so the same Pillow draws the same bytes on every machine; nothing is downloaded.

Pillow is an extra (``pip install 'mazzo[render]'``): this module is imported only when a
frame is drawn, and raises ``ImportError`` naming the extra when Pillow is missing.
"""

from __future__ import annotations

from functools import cache

import numpy as np

try:
    from PIL import Image, ImageDraw, ImageFont
except ImportError as err:  # the envs run without Pillow; only rgb_array frames need it
    raise ImportError(
        "render_mode='rgb_array' draws the table with Pillow, which is not installed: pip install 'mazzo[render]'"
    ) from err

__all__ = ["Table", "RGB", "suit_name", "turn", "blank"]

#: the web page's colours
RGB = {
    "felt": (31, 95, 63), "felt_dark": (23, 74, 49), "ink": (29, 29, 29), "paper": (255, 253, 246),
    "gold": (201, 162, 39), "chalk": (244, 241, 232), "grey": (85, 85, 85), "edge": (136, 136, 136),
    "back": (139, 30, 63), "back_light": (178, 58, 90), "white": (255, 255, 255),
}
#: suit code -> (name, colour): the Italian suits have their own colours, the French red or black
SUITS = {
    "C": ("Coppe", (181, 23, 43)), "D": ("Denari", (192, 138, 0)), "S": ("Spade", (31, 78, 140)),
    "B": ("Bastoni", (46, 125, 50)),
    "h": ("Cuori", (193, 18, 31)), "d": ("Quadri", (193, 18, 31)), "s": ("Picche", (34, 34, 34)),
    "c": ("Fiori", (34, 34, 34)),
}
CARD_SIZE = {False: (58, 84), True: (44, 64)}  # (width, height) of .card and .card.small
BACK_SIZE = (14, 22)
BACK_STEP = 10  # .back overlaps the next by 4 px
GAP = 6  # between cards
SCALE = 4  # sprites are drawn this many times larger, then reduced


def suit_name(code: str) -> str:
    """The Italian name of a card's suit: ``suit_name("JS") == "Spade"``."""
    return SUITS[code[1]][0]


def rank_label(code: str) -> str:
    """The rank as the web page prints it: Cavallo ``H`` as ``C``, French ``T`` as ``10``."""
    r = code[0]
    return "C" if r == "H" else "10" if r == "T" else r


@cache
def font(size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.load_default(size=size)


# -- sprites --------------------------------------------------------------------------------------


def _bezier(p0, p1, p2, p3, steps: int = 10) -> list[tuple[float, float]]:
    t = np.linspace(0.0, 1.0, steps + 1)[1:, None]
    pts = (1 - t) ** 3 * p0 + 3 * (1 - t) ** 2 * t * p1 + 3 * (1 - t) * t**2 * p2 + t**3 * p3
    return [tuple(p) for p in pts]


def _suit_icon(draw: ImageDraw.ImageDraw, suit: str, x0: float, y0: float, size: float, colour, paper) -> None:
    """The suit drawn in a ``size`` square at (x0, y0), in the 24-unit grid of the web page's icons."""
    k = size / 24.0

    def pt(x: float, y: float) -> tuple[float, float]:
        return (x0 + x * k, y0 + y * k)

    def circle(cx: float, cy: float, r: float, fill) -> None:
        draw.ellipse([pt(cx - r, cy - r), pt(cx + r, cy + r)], fill=fill)

    def rect(x: float, y: float, w: float, h: float, r: float = 0.0) -> None:
        draw.rounded_rectangle([pt(x, y), pt(x + w, y + h)], radius=r * k, fill=colour)

    def poly(points) -> None:
        draw.polygon([pt(*p) for p in points], fill=colour)

    a = np.array
    if suit == "C":  # a cup: bowl, stem, foot
        bowl = [(5, 3), (19, 3)] + _bezier(a((19, 3)), a((19, 9)), a((16, 12)), a((12, 12))) + _bezier(
            a((12, 12)), a((8, 12)), a((5, 9)), a((5, 3)))
        poly(bowl)
        rect(11, 12, 2, 6)
        rect(7, 18, 10, 3, 1)
    elif suit == "D":  # a coin
        circle(12, 12, 9, colour)
        circle(12, 12, 5, paper)
        circle(12, 12, 2.5, colour)
    elif suit == "S":  # a sword: blade, guard, grip
        rect(11, 2, 2.4, 14, 1)
        rect(6.5, 15, 11, 2.4, 1)
        rect(11, 17, 2.4, 5, 1)
    elif suit == "B":  # a club with two knots
        poly(_bezier(a((9, 3)), a((11, 2)), a((14, 2)), a((15, 4))) + [(13, 21)]
             + _bezier(a((13, 21)), a((12.8, 22.4)), a((10.8, 22.4)), a((10.6, 21))))
        circle(12, 8, 1.2, paper)
        circle(12, 13, 1.2, paper)
    elif suit == "h":
        circle(7.6, 8.6, 4.8, colour)
        circle(16.4, 8.6, 4.8, colour)
        poly([(3.1, 10.4), (20.9, 10.4), (12, 21.5)])
    elif suit == "d":
        poly([(12, 2), (19.5, 12), (12, 22), (4.5, 12)])
    elif suit == "s":
        circle(7.6, 13.4, 4.6, colour)
        circle(16.4, 13.4, 4.6, colour)
        poly([(3.2, 11.8), (20.8, 11.8), (12, 2)])
        poly([(12, 13), (8.8, 22), (15.2, 22)])
    else:  # "c"
        circle(12, 7, 4.4, colour)
        circle(7, 14, 4.4, colour)
        circle(17, 14, 4.4, colour)
        poly([(12, 11), (9, 22), (15, 22)])


@cache
def card_sprite(code: str, small: bool = False, look: str = "plain") -> Image.Image:
    """An RGBA card face: ``look`` is ``"plain"``, ``"legal"`` (gold edge) or ``"dim"`` (greyed, faded)."""
    s = SCALE
    w, h = CARD_SIZE[small]
    img = Image.new("RGBA", (w * s, h * s), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    edge, width = (RGB["gold"], 2) if look == "legal" else (RGB["edge"], 1)
    d.rounded_rectangle([0, 0, w * s - 1, h * s - 1], radius=7 * s, fill=RGB["paper"], outline=edge, width=width * s)
    name, colour = SUITS[code[1]]
    rank_size, icon, top = (15, 18, 2) if small else (20, 26, 3)
    d.text((w * s / 2, top * s), rank_label(code), font=font(rank_size * s), fill=colour, anchor="mt",
           stroke_width=s // 2, stroke_fill=colour)
    icon_y = top + rank_size + (2 if small else 3)
    _suit_icon(d, code[1], (w - icon) * s / 2, icon_y * s, icon * s, colour, RGB["paper"])
    d.text((w * s / 2, (icon_y + icon + 2) * s), name, font=font(9 * s), fill=RGB["ink"], anchor="mt")
    d.text((w * s / 2, (h - 4) * s), code, font=font(10 * s), fill=RGB["grey"], anchor="mb")
    img = img.resize((w, h), Image.Resampling.LANCZOS)
    if look == "dim":  # .card.illegal: opacity .38, grayscale(.7)
        rgb = img.convert("RGB")
        grey = rgb.convert("L").convert("RGB")
        faded = Image.blend(rgb, grey, 0.7).convert("RGBA")
        faded.putalpha(img.getchannel("A").point(lambda a: a * 38 // 100))
        img = faded
    return img


@cache
def back_sprite() -> Image.Image:
    """An RGBA card back: diagonal stripes in two reds, a white edge (``.back``)."""
    s = SCALE
    w, h = BACK_SIZE[0] * s, BACK_SIZE[1] * s
    y, x = np.mgrid[0:h, 0:w]
    stripe = ((x + y) / (s * np.sqrt(2.0))) % 6.0 < 3.0  # repeating-linear-gradient(45deg, 3px, 3px)
    pixels = np.where(stripe[..., None], RGB["back"], RGB["back_light"]).astype(np.uint8)
    img = Image.fromarray(pixels).convert("RGBA")
    mask = Image.new("L", (w, h), 0)
    ImageDraw.Draw(mask).rounded_rectangle([0, 0, w - 1, h - 1], radius=2 * s, fill=255)
    img.putalpha(mask)
    ImageDraw.Draw(img).rounded_rectangle([0, 0, w - 1, h - 1], radius=2 * s, outline=RGB["white"], width=s)
    return img.resize(BACK_SIZE, Image.Resampling.LANCZOS)


@cache
def spaced_sprite(text: str, size: int, alpha: int) -> Image.Image:
    """Chalk-coloured ``text`` with 1 px between letters, on a transparent sprite (titles repeat)."""
    f = font(size)
    widths = [f.getlength(ch) + 1 for ch in text]
    img = Image.new("RGBA", (int(sum(widths)) + 2, size + 6), (*RGB["chalk"], 0))
    d = ImageDraw.Draw(img)
    x = 0.0
    for ch, w in zip(text, widths, strict=True):
        d.text((x, 0), ch, font=f, fill=(*RGB["chalk"], alpha))
        x += w
    return img


@cache
def felt(width: int, height: int) -> np.ndarray:
    """``radial-gradient(ellipse at center, felt, felt-dark)`` as ``uint8[H, W, 3]`` (read-only, cached)."""
    y, x = np.mgrid[0:height, 0:width].astype(np.float64)
    # the ellipse of the gradient passes through the corners (CSS "farthest-corner")
    t = np.sqrt(((x + 0.5 - width / 2) / (width / 2)) ** 2 + ((y + 0.5 - height / 2) / (height / 2)) ** 2) / np.sqrt(2)
    t = np.clip(t, 0.0, 1.0)[..., None]
    pixels = np.rint(np.array(RGB["felt"]) * (1 - t) + np.array(RGB["felt_dark"]) * t).astype(np.uint8)
    pixels.flags.writeable = False
    return pixels


# -- the table ------------------------------------------------------------------------------------


def _alpha(colour: tuple[int, int, int], opacity: float) -> tuple[int, int, int, int]:
    return (*colour, round(255 * opacity))


class Table:
    """A canvas of the felt; the methods draw the web page's pieces, ``array()`` returns the frame."""

    def __init__(self, width: int, height: int):
        self.width, self.height = width, height
        self.image = Image.fromarray(felt(width, height))
        self.draw = ImageDraw.Draw(self.image, "RGBA")  # "RGBA": translucent fills blend

    def array(self) -> np.ndarray:
        """The frame: a fresh ``uint8[height, width, 3]``."""
        return np.array(self.image, dtype=np.uint8)

    # -- text -----------------------------------------------------------------------------------
    def text(self, x: float, y: float, text: str, size: int = 13, fill=RGB["chalk"], bold: bool = False,
             anchor: str = "la", opacity: float = 1.0) -> float:
        """Draws ``text`` with its ``anchor`` (Pillow's: ``"la"`` left-top, ``"ra"`` right-top, ``"ma"``
        centre-top) at (x, y); returns its width."""
        colour = _alpha(fill, opacity)
        for dx in (0, 1) if bold else (0,):  # the built-in font has no bold: drawn twice, 1 px apart
            self.draw.text((x + dx, y), text, font=font(size), fill=colour, anchor=anchor)
        return self.text_width(text, size, bold)

    def text_width(self, text: str, size: int = 13, bold: bool = False) -> float:
        return self.draw.textlength(text, font=font(size)) + (1 if bold else 0)

    def fit(self, text: str, width: float, size: int = 13) -> str:
        """``text`` cut with an ellipsis to fit ``width`` pixels."""
        if self.text_width(text, size) <= width:
            return text
        while text and self.text_width(text + "…", size) > width:
            text = text[:-1]
        return text + "…"

    def lines(self, x: float, y: float, lines: list[str], width: float, size: int = 13, step: int = 17,
              fill=RGB["chalk"]) -> float:
        """Draws one line of text per item, cut to ``width``; returns the y below the last."""
        for line in lines:
            self.text(x, y, self.fit(line, width, size), size, fill)
            y += step
        return y

    # -- boxes ----------------------------------------------------------------------------------
    def status(self, text: str, x: int = 14, y: int = 12) -> None:
        """The status pill (``#status``): bold 17 px on a darker background."""
        width = self.text_width(text, 17, bold=True)
        self.draw.rounded_rectangle([x, y, x + width + 20, y + 31], radius=6, fill=(0, 0, 0, 64))
        self.text(x + 10, y + 7, text, 17, bold=True)

    def box(self, x: int, y: int, w: int, h: int, title: str | None = None, opacity: float = 0.18,
            fill: tuple[int, int, int] = (0, 0, 0), outline=None) -> None:
        """A ``.box``: translucent rounded rectangle with an upper-case title (``.box h3``)."""
        self.draw.rounded_rectangle([x, y, x + w - 1, y + h - 1], radius=8, fill=_alpha(fill, opacity),
                                    outline=outline, width=2)
        if title:
            self.spaced(x + 10, y + 8, title.upper(), 11, opacity=0.8)

    def spaced(self, x: float, y: float, text: str, size: int, opacity: float = 1.0) -> None:
        """Text with 1 px between letters (``letter-spacing: 1px``), for titles."""
        sprite = spaced_sprite(text, size, round(255 * opacity))
        self.image.paste(sprite, (round(x), round(y)), sprite)

    def seat(self, x: int, y: int, w: int, h: int, name: str, lines: list[str], count: int, you: bool = False,
             acting: bool = False) -> None:
        """A ``.seat``: its name in bold, ``lines`` in small type, one back per card held; the viewer's
        seat has a gold outline (``.you``), the seat to act a gold tint (``.acting``)."""
        if acting:
            self.box(x, y, w, h, opacity=0.35, fill=RGB["gold"], outline=RGB["gold"] if you else None)
        else:
            self.box(x, y, w, h, opacity=0.22, outline=RGB["gold"] if you else None)
        self.text(x + 10, y + 7, self.fit(name, w - 20, 14), 14, bold=True)
        yy = self.lines(x + 10, y + 26, lines, w - 20, size=12, step=15)
        self.backs(x + 10, max(yy + 3, y + h - BACK_SIZE[1] - 9), count, w - 20)

    # -- the parts every game's table has ---------------------------------------------------------
    def header(self, status: str, info: str) -> None:
        """The status pill on the left, the game's line (name, hand, dealer) on the right."""
        self.status(status)
        self.text(self.width - 14, 20, info, 13, anchor="ra", opacity=0.85)

    def seat_row(self, y: int, h: int, seats: list[dict]) -> None:
        """One ``seat(**kwargs)`` per item, side by side across the table, in seat order."""
        width = (self.width - 28 - 10 * (len(seats) - 1)) // len(seats)
        for p, kwargs in enumerate(seats):
            self.seat(14 + p * (width + 10), y, width, h, **kwargs)

    def trick(self, x: int, y: int, w: int, h: int, title: str, plays: list[tuple[str, str]]) -> None:
        """A box of the cards on the table, ``(code, player's name)`` in play order (``-`` if none)."""
        self.box(x, y, w, h, title)
        for i, (code, label) in enumerate(plays):
            self.played(x + 10 + 50 * i, y + 28, code, label)
        if not plays:
            self.text(x + 10, y + 34, "-", 15)

    def hand(self, y: int, h: int, seat: int, codes: list[str], legal: set[str] | None) -> None:
        """The ``Your hand`` box across the table (see ``cards`` for ``legal``)."""
        self.box(14, y, self.width - 28, h, f"Your hand (player_{seat})")
        if codes:
            self.cards(24, y + 34, codes, legal=legal, width=self.width - 48)
        else:
            self.text(24, y + 40, "-", 15)

    # -- cards ----------------------------------------------------------------------------------
    def card(self, x: float, y: float, code: str, small: bool = False, look: str = "plain") -> None:
        """One card face with its shadow (``box-shadow: 0 2px 3px``)."""
        w, h = CARD_SIZE[small]
        x, y = round(x), round(y)
        if look != "dim":
            self.draw.rounded_rectangle([x, y + 2, x + w - 1, y + h + 1], radius=7, fill=(0, 0, 0, 70))
        sprite = card_sprite(code, small, look)
        self.image.paste(sprite, (x, y), sprite)

    def cards(self, x: float, y: float, codes: list[str], small: bool = False, legal: set[str] | None = None,
              width: float | None = None) -> float:
        """A row of faces from (x, y); with ``legal`` the legal cards are raised in gold and the others
        dimmed (``.card.legal`` / ``.card.illegal``). The cards overlap when they would pass ``width``.
        Returns the row's width."""
        w = CARD_SIZE[small][0]
        step = w + GAP
        if width is not None and len(codes) > 1 and len(codes) * step - GAP > width:
            step = (width - w) / (len(codes) - 1)
        for i, code in enumerate(codes):
            look = "plain" if legal is None else "legal" if code in legal else "dim"
            self.card(x + i * step, y - (4 if look == "legal" else 0), code, small, look)
        return (len(codes) - 1) * step + w if codes else 0

    def played(self, x: float, y: float, code: str, label: str) -> None:
        """A ``.played`` card of a trick: the small card with its player's name under it."""
        w, h = CARD_SIZE[True]
        self.card(x, y, code, small=True)
        self.text(x + w / 2, y + h + 4, label, 11, anchor="ma")

    def backs(self, x: float, y: float, count: int, width: float | None = None) -> None:
        """``count`` overlapping card backs (closer together when they would pass ``width``)."""
        step = BACK_STEP
        if width is not None and count > 1 and (count - 1) * step + BACK_SIZE[0] > width:
            step = (width - BACK_SIZE[0]) / (count - 1)
        sprite = back_sprite()
        for i in range(count):
            self.image.paste(sprite, (round(x + i * step), round(y)), sprite)


def turn(seat: int, to_act: int | None, verb: str, over: str = "Episode over") -> str:
    """The status line: ``Your turn (player_2): play a card``, ``player_3 to act`` or ``over``."""
    if to_act is None:
        return over
    return f"Your turn (player_{seat}): {verb}" if to_act == seat else f"player_{to_act} to act"


def blank(size: tuple[int, int], status: str) -> np.ndarray:
    """An empty table of ``size`` (width, height) with a status (e.g. before the first reset)."""
    table = Table(*size)
    table.status(status)
    return table.array()
