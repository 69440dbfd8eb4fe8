"""A HUNL rule card on one page: each section's rules beside a 13x13 grid of the hands each rule covers.

:func:`card_figure` plays the card in an example endgame (:data:`EXAMPLE_SPOT` by default): for every section of
the card it takes the first decision node of that type (breadth-first: the first bet faced is the smallest), reads
which rule each hand of the acting player's range reads there (:class:`hunl.distill.cards.CardPolicy`), and
colours each cell of the hand grid (suited above the diagonal, offsuit below, pairs on it) by the rule that covers
most of the cell's combos, weighted by the range (:func:`rule_cells`; white where most of them read a rule of
another section, which takes the decision first); the section's rules are printed beside the grid in the same
colours.
"""

from __future__ import annotations

import textwrap

import numpy as np

from hunl.distill.cards import CardPolicy
from hunl.distill.decisions import DecisionContext, features_in, reach_probabilities
from hunl.distill.policy import play
from hunl.poker.cards import HAND_CLASS_LABELS, RANKS, format_cards, grid_average
from hunl.solver.game import HoldemEndgame
from hunl.solver.tree import BetSizes
from rulelearn.rules.cards import RuleCard

__all__ = ["EXAMPLE_SPOT", "card_figure", "card_page", "example_for", "example_game", "rule_cells"]

#: The example endgame of the figure: a dry river board, wide ranges, pot 100, 4 pots behind, the training
#: tree's sizes (half pot, pot, all-in).
EXAMPLE_SPOT = {"board": "Ks7d2c4h9s",
                "ranges": ["22+,A2s+,K5s+,Q8s+,J8s+,T8s+,97s+,86s+,75s+,65s,54s,A7o+,K9o+,QTo+,JTo",
                           "22+,A2s+,K7s+,Q9s+,J9s+,T8s+,97s+,87s,76s,65s,A8o+,KTo+,QTo+,JTo"],
                "pot": 100.0, "stack": 400.0, "bet_sizes": BetSizes(bets=(0.5, 1.0), raises=(), all_in=True),
                "raise_cap": 1}


def example_game(spot: dict | None = None) -> HoldemEndgame:
    """The endgame of ``spot`` (default :data:`EXAMPLE_SPOT`).

    Parameters
    ----------
    spot : dict, optional
        The spot, with the keys of :data:`EXAMPLE_SPOT`: ``"board"`` (str, 3-5 cards), ``"ranges"`` (two range
        strings or weight arrays, out of position first), ``"pot"`` (float, chips), ``"stack"`` (float, chips
        behind), ``"bet_sizes"`` (:class:`hunl.solver.tree.BetSizes` or what
        :class:`hunl.solver.game.HoldemEndgame` accepts) and ``"raise_cap"`` (int); default
        :data:`EXAMPLE_SPOT`.

    Returns
    -------
    hunl.solver.game.HoldemEndgame
        The endgame (other parameters at their defaults: big blind 100 chips, no rake, no isomorphism).

    Raises
    ------
    KeyError
        If ``spot`` lacks one of the keys.
    ValueError
        If :class:`~hunl.solver.game.HoldemEndgame` rejects the spot (a malformed board or range, a pot that
        is not positive, a negative stack, bad sizes).
    """
    s = EXAMPLE_SPOT if spot is None else spot
    return HoldemEndgame(s["board"], s["ranges"], pot=s["pot"], stack=s["stack"], bet_sizes=s["bet_sizes"],
                         raise_cap=s["raise_cap"])


#: The turn and flop examples' ranges (narrower than the river's: the hands that reach the turn or flop endgames).
_EARLY_RANGES = ["TT+,A9s+,KTs+,QJs,JTs,T9s,98s,AJo+,KQo", "99+,ATs+,KJs+,QJs,JTs,T9s,87s,AQo+,KQo"]


def example_for(card: RuleCard) -> HoldemEndgame:
    """The example endgame of ``card``'s figure, on the first street it plays (``card.meta["streets"]``): the
    river spot :data:`EXAMPLE_SPOT`; for a turn card the same board without the river (Ks7d2c4h) and narrower
    ranges; for a flop card the flop Ks7d2c with those ranges and the flop endgames' bet sizes
    (:meth:`hunl.distill.sampler.EndgameSampler.flop`).

    Parameters
    ----------
    card : RuleCard
        A HUNL card; ``card.meta["streets"]`` lists the streets it plays (3 flop, 4 turn, 5 river).

    Returns
    -------
    hunl.solver.game.HoldemEndgame
        The example endgame of the card's first street (pot 100 chips, 400 chips behind;
        :func:`example_game`).

    Raises
    ------
    ValueError
        If the card names no street of hold'em (e.g. the bet game's card).
    """
    streets = card.meta.get("streets")
    if not streets or not set(int(s) for s in streets) <= {3, 4, 5}:
        raise ValueError(f"card {card.title!r}: meta['streets'] must name hold'em streets 3-5 (flop, turn, river) "
                         f"for a one-page hand-grid figure, got {streets!r}")
    first = min(int(s) for s in streets)
    if first == 5:
        return example_game()
    if first == 4:
        return example_game(dict(EXAMPLE_SPOT, board="Ks7d2c4h", ranges=_EARLY_RANGES))
    from hunl.distill.sampler import EndgameSampler

    return example_game(dict(EXAMPLE_SPOT, board="Ks7d2c", ranges=_EARLY_RANGES,
                             bet_sizes=EndgameSampler.flop().bet_sizes))


def rule_cells(idx, first: int, n_rules: int, combos, prior) -> np.ndarray:
    """Which of a section's rules each cell of the 13x13 hand grid reads.

    Parameters
    ----------
    idx : ndarray of int, shape (n,)
        The card rule each of the player's ``n`` hands reads at the decision (:meth:`CardPolicy.leaf_ids`).
    first, n_rules : int
        The section's rules are ``first .. first + n_rules - 1``.
    combos : ndarray of int, shape (n,)
        Each hand's combo index (0-1325).
    prior : ndarray of float, shape (n,)
        Each hand's weight in the range.

    Returns
    -------
    ndarray of float64, shape (13, 13)
        Per cell the position (``0 .. n_rules - 1``) of the section's rule that most of the cell's combos read,
        weighted by ``prior``; ``n_rules`` where most of them read a rule of another section (a section earlier on
        the card that takes the decision first); NaN where the cell has no hand in the range.
    """
    idx = np.asarray(idx)
    onehot = np.zeros((idx.size, n_rules + 1))
    inside = (idx >= first) & (idx < first + n_rules)
    onehot[np.flatnonzero(inside), idx[inside] - first] = 1.0
    onehot[np.flatnonzero(~inside), n_rules] = 1.0
    combo = np.zeros((1326, n_rules + 1))
    combo[combos] = onehot
    w = np.zeros(1326)
    w[combos] = prior
    grid = grid_average(combo, w)
    return np.where(np.isnan(grid).all(axis=2), np.nan, np.nanargmax(np.nan_to_num(grid, nan=-1), axis=2))


def _section_nodes(card: RuleCard, ctx: DecisionContext) -> list[int]:
    """For each section, the position in ``ctx.nodes`` of its first decision node (or -1)."""
    out = []
    for s in card.sections:
        found = -1
        for k in range(ctx.nodes.size):
            vals = {"street": float(ctx.street[k]), "in_position": float(ctx.player[k]),
                    "facing": float(ctx.facing[k])}
            if all(c.holds(vals[c.feature]) for c in s.conditions if c.feature in vals):
                found = k
                break
        out.append(found)
    return out


def card_figure(card: RuleCard, path, game: HoldemEndgame | None = None, title: str | None = None) -> None:
    """Write the one-page figure of ``card`` (PNG) on ``game`` (default :func:`example_game`).

    Parameters
    ----------
    card : RuleCard
        A HUNL card (:func:`hunl.distill.cards.card_from_tree`).
    path : str or os.PathLike
    game : HoldemEndgame, optional
    title : str, optional
    """
    import matplotlib

    matplotlib.use("Agg")
    from pathlib import Path

    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap

    game = example_game() if game is None else game
    policy = CardPolicy(card)
    ctx = DecisionContext(game)
    nodes = _section_nodes(card, ctx)
    reach = np.ones((2, game.tree.n_nodes, game.max_hands))
    if policy.ranges == "own":    # the card's quantities read the player's own range under the card's own play
        reach = reach_probabilities(game, play(game, policy).probs)
    feats = features_in(game, ctx, np.array([k for k in nodes if k >= 0], dtype=np.int64), reach, policy.ranges)
    feat_of = dict(zip([k for k in nodes if k >= 0], feats))
    cost = f"  -  cost {card.cost.text()}" if card.cost is not None else ""
    heading = textwrap.fill(f"{title or card.title}{cost}", 115)   # long titles on several lines, none cut off
    n_head = heading.count("\n") + 1
    width, head_h, grid_h = 11.5, 0.8 + 0.2 * (n_head - 1), 2.7
    line_h, gap_h, title_h = 0.115, 0.075, 0.3  # inches: a line of rule text, between rules, the section title
    texts = [[textwrap.fill(card.rule_text(r, len(s.rules) > 1) + f"   [{r.coverage:.0%}]", 135) for r in s.rules]
             for s in card.sections]
    sec_hs = [max(grid_h, title_h + sum(line_h * (t.count("\n") + 1) + gap_h for t in ts) + 0.15) for ts in texts]
    height = head_h + sum(sec_hs)
    fig = plt.figure(figsize=(width, height))
    palette = list(matplotlib.colormaps["tab10"].colors) + list(matplotlib.colormaps["Set3"].colors)
    labels = np.array(HAND_CLASS_LABELS).reshape(13, 13)
    first = 0
    for si, (s, k) in enumerate(zip(card.sections, nodes)):
        top, sec_h = height - head_h - sum(sec_hs[:si]), sec_hs[si]
        ax = fig.add_axes((0.25 / width, (top - 2.45) / height, 2.3 / width, 2.3 / height))
        tx_h = sec_h - 0.05
        tx = fig.add_axes((2.85 / width, (top - tx_h) / height, (width - 3.0) / width, tx_h / height))
        tx.set_axis_off()
        local = list(range(first, first + len(s.rules)))
        first += len(s.rules)
        colors = [palette[j % len(palette)] for j in range(len(local))]
        if k >= 0:
            p = int(ctx.player[k])
            _, idx = policy.leaf_ids(int(ctx.street[k]), bool(ctx.facing[k]), p, feat_of[k])
            cell = rule_cells(idx, local[0], len(local), game.combos[p], game.prior[p, :game.num_hands[p]])
            ax.imshow(np.ma.masked_invalid(cell), cmap=ListedColormap(colors + ["white"]).with_extremes(bad="#eeeeee"),
                      vmin=-0.5, vmax=len(local) + 0.5)
            for (r, c), v in np.ndenumerate(cell):
                ax.text(c, r, labels[r, c], ha="center", va="center", fontsize=4.3,
                        color="black" if np.isfinite(v) else "#aaaaaa")
            where = f"first decision of this type on {format_cards(game.board)}"
        else:
            where = "(no such decision in the example endgame)"
        ax.set_xticks(range(13), list(RANKS[::-1]), fontsize=5)
        ax.set_yticks(range(13), list(RANKS[::-1]), fontsize=5)
        ax.tick_params(length=0, labeltop=True, labelbottom=False)
        lines = [f"{s.title}  -  grid: {where}"]
        tx.text(0, 1, lines[0], fontsize=8.5, fontweight="bold", va="top", transform=tx.transAxes)
        y = 1 - title_h / tx_h
        for j, text in enumerate(texts[si]):
            tx.add_patch(matplotlib.patches.Rectangle((0, y - 0.12 / tx_h), 0.01, 0.11 / tx_h, color=colors[j],
                                                      transform=tx.transAxes, clip_on=False))
            tx.text(0.016, y, text, fontsize=6.6, va="top", transform=tx.transAxes)
            y -= (line_h * (text.count("\n") + 1) + gap_h) / tx_h
    fig.text(0.5, 1 - 0.12 / height, heading, ha="center", va="top", fontsize=10.5, fontweight="bold")
    fig.text(0.5, 1 - (0.45 + 0.2 * (n_head - 1)) / height,
             f"{card.n_rules} rules, {card.n_conditions} conditions. Grid cells: the rule most of the hand class's "
             "combos read (suited above the diagonal; white: a rule of another section; grey: not in the range).",
             ha="center", va="top", fontsize=8)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=130)
    plt.close(fig)


def card_page(card: RuleCard, path) -> None:
    """:func:`card_figure` of ``card`` on its example endgame (:func:`example_for`): what ``rulelearn rules --card
    NAME --out DIR`` draws (:data:`rulelearn.cli.CARD_FIGURES`).

    Parameters
    ----------
    card : RuleCard
        A HUNL card; ``card.meta["streets"]`` lists the streets it plays (3 flop, 4 turn, 5 river).
    path : str or os.PathLike
        The PNG file written (its parent directories are created).

    Raises
    ------
    ValueError
        If the card names no street of hold'em.
    """
    card_figure(card, path, game=example_for(card))
