"""The fitted rule cards shipped with the package (``hunl/preflop/data/rule_cards.json``).

Fitting the exact cards of all bands takes minutes (a MILP per band and player, :mod:`hunl.preflop.rule_mip`),
so ``python scripts/preflop_report.py`` stores them, with their measured costs, and the ``pushfold`` command
reads them back. The file is plain JSON: the game (ante, small blind), then per band the two cards as lists of
clause fields (:class:`hunl.preflop.clauses.HandSet`) with their mean and largest cost (mbb/g) and how they were
found (MIP status and gap).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path

from hunl.preflop.clauses import HandSet
from hunl.preflop.rules import BandReport, RuleCard

__all__ = ["CARDS_PATH", "StoredCard", "card_for_stack", "load_rule_cards", "save_rule_cards"]

#: The shipped rule cards.
CARDS_PATH = Path(__file__).resolve().parent / "data" / "rule_cards.json"


@dataclass(frozen=True)
class StoredCard:
    """A rule card read back from the card file.

    Attributes
    ----------
    card : RuleCard
    mean_mbb, max_mbb : float
        Its cost over its band when it was fitted (mbb/g).
    status : str
        How it was found (``"Optimal"``, ``"Time limit reached"``, ``"heuristic"``).
    gap_mbb : float or None
        MIP gap (mbb/g).
    ante, small_blind : float
        The game it was fitted for (bb).
    """

    card: RuleCard
    mean_mbb: float
    max_mbb: float
    status: str
    gap_mbb: float | None
    ante: float
    small_blind: float


def save_rule_cards(reports: list[BandReport], ante: float, small_blind: float, path=CARDS_PATH) -> None:
    """Write the cards of :func:`hunl.preflop.rules.band_reports` to ``path`` (JSON).

    The file holds the game (``ante``, ``small_blind``), then per band its stack range and the two cards
    (SB's, then BB's) as clause fields with their mean and largest cost in mbb/g (rounded to 6 decimals), MIP
    status and gap; :func:`load_rule_cards` reads it back. It is written to a temporary file beside ``path``
    and then renamed, so a reader never sees half a file; the directory is created if missing.

    Parameters
    ----------
    reports : list of hunl.preflop.rules.BandReport
        One per band, in the order to store (:func:`~hunl.preflop.rules.band_reports`).
    ante : float
        Ante per player of the game the cards were fitted for, in big blinds.
    small_blind : float
        Small blind of that game, in big blinds.
    path : str or pathlib.Path, default :data:`CARDS_PATH`
        The file to write; the default replaces the cards shipped with the package.
    """
    bands = []
    for rep in reports:
        entry = {"band": list(rep.band), "cards": []}
        for fit in rep.fits:
            entry["cards"].append({
                "player": fit.card.player,
                "clauses": [dataclasses.asdict(c) for c in fit.card.clauses],
                "mean_mbb": round(fit.cost.mean_mbb, 6),
                "max_mbb": round(fit.cost.max_mbb, 6),
                "status": fit.status,
                "gap_mbb": None if fit.gap_mbb is None else round(fit.gap_mbb, 6),
            })
        bands.append(entry)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({"ante": ante, "small_blind": small_blind, "bands": bands}, indent=1) + "\n")
    tmp.replace(path)


def load_rule_cards(path=CARDS_PATH) -> list[StoredCard]:
    """All stored cards, band by band (SB's card, then BB's).

    Parameters
    ----------
    path : str or pathlib.Path, default :data:`CARDS_PATH`
        The card file written by :func:`save_rule_cards`; the default is the cards shipped with the package.

    Returns
    -------
    list of StoredCard
        In file order: per band, the cards as stored (SB's, then BB's), each with its band, clauses, fitted
        costs (mbb/g), MIP status and gap, and the file's ante and small blind (bb).

    Raises
    ------
    FileNotFoundError
        If the file does not exist (write it with ``python scripts/preflop_report.py``).
    json.JSONDecodeError
        If the file is not valid JSON (a subclass of ValueError).
    KeyError
        If a field the file must hold (``"bands"``, ``"cards"``, ``"ante"``, ...) is missing.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no rule cards at {path}; fit them with `python scripts/preflop_report.py`")
    data = json.loads(path.read_text())
    out = []
    for entry in data["bands"]:
        for c in entry["cards"]:
            card = RuleCard(int(c["player"]), tuple(entry["band"]), tuple(HandSet(**h) for h in c["clauses"]))
            out.append(StoredCard(card, float(c["mean_mbb"]), float(c["max_mbb"]), c["status"], c["gap_mbb"],
                                  float(data["ante"]), float(data["small_blind"])))
    return out


def card_for_stack(stack: float, player: int, ante: float = 0.0, small_blind: float = 0.5,
                   path=CARDS_PATH) -> StoredCard | None:
    """The stored card of ``player`` whose band holds ``stack`` (``lo <= stack < hi``; the top band includes its
    top), for the same ante and small blind; ``None`` if there is none.

    Parameters
    ----------
    stack : float
        Effective stack, in big blinds.
    player : int
        0 for the SB's push card, 1 for the BB's call card.
    ante : float, default 0.0
        Ante per player, in big blinds; must match the stored game's to 1e-12.
    small_blind : float, default 0.5
        Small blind, in big blinds; must match the stored game's to 1e-12.
    path : str or pathlib.Path, default :data:`CARDS_PATH`
        The card file to read (:func:`load_rule_cards`).

    Returns
    -------
    StoredCard or None
        The first matching card; ``None`` if the file does not exist, holds no card of ``player`` for this
        ante and small blind, or no band holds ``stack``.

    Raises
    ------
    json.JSONDecodeError, KeyError
        As :func:`load_rule_cards` for a malformed file (a missing file gives ``None`` instead).
    """
    try:
        cards = load_rule_cards(path)
    except FileNotFoundError:
        return None
    mine = [c for c in cards if c.card.player == player and abs(c.ante - ante) < 1e-12
            and abs(c.small_blind - small_blind) < 1e-12]
    if not mine:
        return None
    top = max(c.card.band[1] for c in mine)
    for c in mine:
        lo, hi = c.card.band
        if lo - 1e-9 <= stack < hi - 1e-9 or (abs(hi - top) < 1e-9 and abs(stack - hi) < 1e-9):
            return c
    return None
