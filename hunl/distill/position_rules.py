"""Betting rules of either position copied into each position's section: one rule more per rule, its mix per position.

A HUNL card's first split is on the section features (street, facing a bet, position), which cost no condition;
a river card usually keeps one section for the betting decisions of either position. Out of position the first
decision leads into a range that has not checked; in position it follows a check, against a range that checked,
and how often to bet with which hands differs between the two (on the summary river card, the floor run's
section table: its six either-position betting rules carry the largest cost of sharing, docs/HUNL.md).

:func:`by_position` moves chosen rules of such a section into the two positional sections of the same decisions
(creating them where the card has none), one copy in each, first in its section, with the rule's conditions and
mix: every decision plays what it played, and each copy's mix can then be chosen for its position alone
(:func:`hunl.distill.plain_search.plain_by_exploitability`; ``rule_cards.py thresholds --by-position``).
"""

from __future__ import annotations

import numpy as np

from rulelearn.rules.cards import CardCondition, CardRule, CardSection, RuleCard, conditions_overlap

__all__ = ["by_position"]

_EITHER = "either position"
_POSITIONS = ((("<=", 0.5), "out of position (acting first)"), ((">", 0.5), "in position (acting last)"))


def by_position(card: RuleCard, rules, section: int | None = None) -> tuple[RuleCard, np.ndarray]:
    """The card with rules of an either-position section moved into each position's section (same play).

    Parameters
    ----------
    card : RuleCard
    rules : sequence of int
        Positions of the rules to move within ``section`` (its :attr:`CardSection.rules` order).
    section : int, optional
        The section (index into ``card.sections``); it must have no ``in_position`` condition. Default: the first
        section whose title names either position and that does not face a bet.

    Returns
    -------
    card : RuleCard
        ``section`` without the moved rules; each position's section (conditions: ``section``'s and
        ``in_position <= 0.5`` or ``> 0.5``; appended after the last section where the card has none) starts with
        copies of them, in the given order, with their conditions, mixes and half their coverage.
    rows : numpy.ndarray of int64, shape ``(2 * len(rules),)``
        The copies' positions in :meth:`RuleCard.rules` (out of position first), e.g. the rows whose mixes
        :func:`hunl.distill.plain_search.plain_by_exploitability` chooses again.

    Raises
    ------
    ValueError
        If no section qualifies, ``section`` has an ``in_position`` condition, ``rules`` is empty, repeats a rule or
        names none of the section, a moved rule's conditions can hold together with those of a later rule of its
        section, or a later section for either position can hold for the section's decisions (that rule or
        section would take some of the moved rule's decisions: the play would change).
    """
    secs = list(card.sections)
    if section is None:
        section = next((k for k, s in enumerate(secs) if _EITHER in s.title
                        and any(c.feature == "facing" and c.op == "<=" for c in s.conditions)), None)
        if section is None:
            raise ValueError("section: the card has no either-position section of decisions not facing a bet")
    if not 0 <= int(section) < len(secs):
        raise ValueError(f"section must be in 0..{len(secs) - 1}, got {section!r}")
    section = int(section)
    sec = secs[section]
    if any(c.feature == "in_position" for c in sec.conditions):
        raise ValueError(f"section {section} ({sec.title!r}) is already for one position")
    rules = [int(r) for r in rules]
    if not rules or len(set(rules)) != len(rules) or not all(0 <= r < len(sec.rules) for r in rules):
        raise ValueError(f"rules must be distinct positions in 0..{len(sec.rules) - 1} of section {section}, "
                         f"got {rules!r}")
    for r in rules:
        later = [k for k in range(r + 1, len(sec.rules))
                 if k not in rules and conditions_overlap(sec.rules[r].conditions, sec.rules[k].conditions)]
        if later:
            raise ValueError(f"rules: rule {r} of section {section} can take decisions rule {later[0]} after it "
                             "also holds for; moving it would change the play")
    between = [k for k in range(section + 1, len(secs)) if not any(c.feature == "in_position" for c in secs[k].conditions)
               and conditions_overlap(sec.conditions, secs[k].conditions)]
    if between:
        raise ValueError(f"section: section {between[0]} ({secs[between[0]].title!r}) after section {section} can "
                         "take its decisions before a position's section; moving rules would change the play")
    moved = [sec.rules[r] for r in rules]
    secs[section] = CardSection(sec.title, tuple(x for k, x in enumerate(sec.rules) if k not in rules),
                                sec.conditions)
    halves = tuple(CardRule(x.conditions, x.action, x.strategy, x.coverage / 2) for x in moved)
    targets = []                                  # each position's section, where its copies come first
    for side, phrase in _POSITIONS:
        conds = tuple(sec.conditions) + (CardCondition("in_position", *side),)
        k = next((j for j, s in enumerate(secs) if set(s.conditions) == set(conds)), None)
        if k is None:
            k = len(secs)
            secs.append(CardSection(sec.title.replace(_EITHER, phrase), (), conds))
        secs[k] = CardSection(secs[k].title, halves + tuple(secs[k].rules), secs[k].conditions)
        targets.append(k)
    starts = np.cumsum([0] + [len(s.rules) for s in secs])
    rows = np.concatenate([starts[k] + np.arange(len(moved)) for k in targets]).astype(np.int64)
    return RuleCard(card.title, tuple(secs), card.quantities, card.cost, card.notes, card.meta), rows
