"""Rules and strategies in words: action mixes, per-hand strategies, one rule per line.

Nothing here knows a game: actions are named by the family's ``action_labels`` and sized by its
``action_values`` (0 for a passive action), hands by its ``hand_labels`` and :func:`~rulelearn.family.hand_noun`.
"""

from __future__ import annotations

import numpy as np

from rulelearn.numeric import weighted_quantile
from rulelearn.rules.conditions import Rule

__all__ = ["describe_action_mix", "describe_strategy", "format_rule", "group_hands", "sized_action_verb"]


def sized_action_verb(action_labels, sized) -> str:
    """The word that names the sized actions: the first word of the smallest one's label (``"bet"`` for
    ``"bet 0.1"``), ``"size"`` if there is none.

    Parameters
    ----------
    action_labels : sequence of str
    sized : array_like of bool, shape ``(n_actions,)``
        Which actions are sized (non-passive), in increasing size.
    """
    first = np.flatnonzero(np.asarray(sized))
    return str(action_labels[int(first[0])]).split(" ")[0] if first.size else "size"


def describe_action_mix(probs, action_labels, action_values=None, min_prob: float = 0.1) -> str:
    """One hand's action mix in words.

    Parameters
    ----------
    probs : array_like of float, shape ``(n_actions,)``
    action_labels : sequence of str
        e.g. ``"check"``, ``"bet 0.1"``, ...
    action_values : array_like of float, shape ``(n_actions,)``, optional
        Numeric sizes (0 for a passive action such as a check). When given, a spread of sized actions is
        summarised by its central 80% and median, named by :func:`sized_action_verb`:
        ``"check 21%, bet 0.1-1.7 (median 0.5) 79%"``.
    min_prob : float, default 0.1
        Without ``action_values``: actions below this probability are pooled as "other".

    Returns
    -------
    str
        e.g. ``"check"``, ``"bet 0.1 9%, bet 0.6 27%, bet 1.8 64%"``.
    """
    p = np.asarray(probs, dtype=np.float64)
    top = int(p.argmax())
    if p[top] >= 0.995:
        return action_labels[top]
    keep = np.flatnonzero(p >= min_prob)
    if action_values is not None and p[keep].sum() < 0.8:
        v = np.asarray(action_values, dtype=np.float64)
        parts = []
        passive = v == 0
        if p[passive].sum() >= 0.005:
            parts.append(f"{action_labels[int(np.flatnonzero(passive)[0])]} {p[passive].sum():.0%}")
        bets, w = v[~passive], p[~passive]
        if w.sum() >= 0.005:
            lo, med, hi = (weighted_quantile(bets, w, q) for q in (0.1, 0.5, 0.9))
            verb = sized_action_verb(action_labels, ~passive)
            what = f"{verb} {lo:g}" if lo == hi else f"{verb} {lo:g}-{hi:g} (median {med:g})"
            parts.append(f"{what} {w.sum():.0%}")
        return ", ".join(parts)
    parts = [f"{action_labels[k]} {p[k]:.0%}" for k in keep]
    rest = 1.0 - p[keep].sum()
    if rest >= 0.005:
        parts.append(f"other {rest:.0%}")
    return ", ".join(parts)


def describe_strategy(strategy, action_labels, hand_labels=None, noun: str = "hand", action_values=None,
                      min_prob: float = 0.1) -> str:
    """A strategy in words: one action mix, or per hand with equal neighbouring hands grouped.

    Parameters
    ----------
    strategy : array_like of float, shape ``(n_actions,)`` or ``(d, n_actions)``
    action_labels : sequence of str
    hand_labels : sequence of str, optional
        Default ``"1" .. "d"``.
    noun : str, default "hand"
        What a hand is called (a game family's :func:`~rulelearn.family.hand_noun`, e.g. ``"card"``).
    action_values : array_like of float, optional
        See :func:`describe_action_mix`.
    min_prob : float, default 0.1

    Returns
    -------
    str
        e.g. ``"cards 3-6: check; card 7: bet 0.1; ..."`` with ``noun="card"``.
    """
    s = np.asarray(strategy, dtype=np.float64)
    if s.ndim == 1:
        return describe_action_mix(s, action_labels, action_values, min_prob)
    labels = [str(k + 1) for k in range(s.shape[0])] if hand_labels is None else list(hand_labels)
    words = [describe_action_mix(row, action_labels, action_values, min_prob) for row in s]
    return group_hands(words, labels, noun)


def group_hands(words, labels, noun: str = "hand") -> str:
    """``"cards 3-6: check; card 7: bet 0.1"``: one description per hand, equal neighbours grouped.

    Parameters
    ----------
    words : sequence of str
        One description per hand, in hand order (e.g. from :func:`describe_action_mix`).
    labels : sequence of str
        The hands' names, at least as many as ``words``.
    noun : str, default "hand"
        What a hand is called; a group of several hands takes the plural ``noun + "s"``.

    Returns
    -------
    str
        One ``"<noun> <label>: <words>"`` or ``"<noun>s <first>-<last>: <words>"`` per run of equal
        neighbouring descriptions, joined by ``"; "``; empty if ``words`` is.

    Raises
    ------
    IndexError
        If ``labels`` has fewer entries than ``words``.
    """
    parts, start = [], 0
    for k in range(1, len(words) + 1):
        if k == len(words) or words[k] != words[start]:
            who = f"{noun} {labels[start]}" if k - 1 == start else f"{noun}s {labels[start]}-{labels[k - 1]}"
            parts.append(f"{who}: {words[start]}")
            start = k
    return "; ".join(parts)


def format_rule(rule: Rule, action_labels, hand_labels=None, noun: str = "hand", action_values=None) -> str:
    """``"if <conditions>: <strategy>   [12% of training rows, depth 3]"`` (see :func:`describe_strategy`).

    Parameters
    ----------
    rule : Rule
        A leaf of a tree as a rule: its conditions (none: ``"always"``), strategy, coverage and depth.
    action_labels : sequence of str
        Names of the ``n_actions`` actions.
    hand_labels : sequence of str, optional
        Names of the ``d`` hands of a per-game strategy (default ``"1" .. "d"``); unused for a per-hand one.
    noun : str, default "hand"
        What a hand is called (a game family's :func:`~rulelearn.family.hand_noun`).
    action_values : array_like of float, shape ``(n_actions,)``, optional
        Numeric sizes of the actions (0 for a passive one); see :func:`describe_action_mix`.

    Returns
    -------
    str
        One line: the conditions joined by ``" and "``, the strategy in words (:func:`describe_strategy` with
        its default ``min_prob``), and the rule's share of the training rows (whole percent) and depth.

    Raises
    ------
    IndexError
        If ``action_labels`` or ``hand_labels`` is shorter than the strategy's axis it names.
    """
    cond = " and ".join(str(c) for c in rule.conditions) or "always"
    what = describe_strategy(rule.strategy, action_labels, hand_labels, noun, action_values)
    return f"if {cond}: {what}   [{rule.coverage:.0%} of training rows, depth {rule.depth}]"
