"""Bridge to OpenSpiel (used only by tests and benchmarks; ``pyspiel`` is imported lazily).

OpenSpiel's ``kuhn_poker`` and ``leduc_poker`` deal the private cards as chance events and identify information
sets by strings (``"1pb"``; ``"[Observer: 0][Private: 3][Round 2]...[Public: 2]..."``). Instead of rebuilding
those strings, :func:`infoset_map` walks OpenSpiel's whole game tree alongside our public tree -- the first two
chance events set the private hands, later ones pick the child of our chance node with the same card, actions
map by OpenSpiel action id -- and records, for every decision state, which ``(public node, hand)`` it belongs to.
The map must be a bijection between OpenSpiel's information states and our information sets; this is checked.
"""

from __future__ import annotations

import numpy as np

from games.core.policy import Policy
from games.core.tree import CHANCE, DECISION, TERMINAL, Game

__all__ = ["OPENSPIEL_NAMES", "from_tabular_policy", "infoset_map", "openspiel_game", "to_tabular_policy"]

#: OpenSpiel game names and action-id -> our action label, per game name.
OPENSPIEL_NAMES = {"kuhn": "kuhn_poker", "leduc": "leduc_poker"}
_ACTION_LABELS = {"kuhn": {0: "p", 1: "b"}, "leduc": {0: "f", 1: "c", 2: "r"}}


def openspiel_game(game: Game):
    """The ``pyspiel.Game`` equivalent to ``game`` (Kuhn or Leduc).

    Parameters
    ----------
    game : Game
        Our game; its ``name`` (``"kuhn"`` or ``"leduc"``) selects the OpenSpiel game
        (:data:`OPENSPIEL_NAMES`).

    Returns
    -------
    pyspiel.Game
        A new ``kuhn_poker`` or ``leduc_poker`` with OpenSpiel's default parameters.

    Raises
    ------
    ValueError
        For a game OpenSpiel does not have here (the bet game).
    ImportError
        If OpenSpiel (``pyspiel``) is not installed.
    """
    import pyspiel

    if game.name not in OPENSPIEL_NAMES:
        raise ValueError(f"no OpenSpiel equivalent for game {game.name!r}; known: {sorted(OPENSPIEL_NAMES)}")
    return pyspiel.load_game(OPENSPIEL_NAMES[game.name])


def infoset_map(game: Game, os_game=None) -> dict:
    """``{OpenSpiel information-state string: (player, node, hand)}`` over the whole game.

    Parameters
    ----------
    game : Game
        Kuhn or Leduc (``game.name`` a key of :data:`OPENSPIEL_NAMES`).
    os_game : pyspiel.Game, optional
        The OpenSpiel game; default :func:`openspiel_game` of ``game``.

    Returns
    -------
    dict of str to (int, int, int)
        For each of OpenSpiel's information states: the acting player (0 or 1), our public decision node and
        the player's hand (OpenSpiel's private-card chance outcome). One entry per information set of ours.

    Raises
    ------
    AssertionError
        If the two trees disagree (different players to act, actions, terminal payoffs) or the map is not a
        bijection onto our information sets.
    ValueError
        If ``os_game`` is not given and OpenSpiel has no equivalent of the game (the bet game).
    KeyError
        If ``os_game`` is given for a game that is neither Kuhn nor Leduc.
    ImportError
        If OpenSpiel is not installed and ``os_game`` is not given.
    """
    os_game = os_game or openspiel_game(game)
    labels = _ACTION_LABELS[game.name]
    t = game.tree
    out: dict = {}

    def child_with_label(node: int, label: str) -> int:
        for c in t.children(node):
            if t.action[c] == label:
                return c
        raise AssertionError(f"node {t.history[node]!r} has no action {label!r}")

    def walk(state, node: int, hands: list):
        if state.is_terminal():
            assert t.kind[node] == TERMINAL, f"OpenSpiel terminal at non-terminal node {t.history[node]!r}"
            got = game.payoff(node, hands[0], hands[1])
            assert abs(got - state.returns()[0]) < 1e-12, (t.history[node], hands, got, state.returns())
            return
        if state.is_chance_node():
            for action, _prob in state.chance_outcomes():
                child = state.child(action)
                if len(hands) < 2:
                    walk(child, node, hands + [action])
                else:
                    assert t.kind[node] == CHANCE, f"OpenSpiel chance at {t.history[node]!r}"
                    walk(child, child_with_label(node, str(action)), hands)
            return
        p = state.current_player()
        assert t.kind[node] == DECISION and t.player[node] == p, f"player mismatch at {t.history[node]!r}"
        key = state.information_state_string(p)
        val = (p, node, hands[p])
        prev = out.setdefault(key, val)
        assert prev == val, f"information state {key!r} maps to both {prev} and {val}"
        legal = state.legal_actions()
        assert [t.action[c] for c in t.children(node)] == [labels[a] for a in legal], t.history[node]
        for a in legal:
            walk(state.child(a), child_with_label(node, labels[a]), hands)

    walk(os_game.new_initial_state(), 0, [])
    assert len(set(out.values())) == len(out)
    n_ours = game.num_infosets(0) + game.num_infosets(1)
    assert len(out) == n_ours, f"{len(out)} OpenSpiel information states for {n_ours} of ours"
    return out


def to_tabular_policy(policy: Policy, os_game=None, mapping: dict | None = None):
    """Our :class:`Policy` as an OpenSpiel ``TabularPolicy``.

    Each OpenSpiel information state gets the action probabilities of the ``(node, hand)`` it maps to
    (:func:`infoset_map`); the columns of actions not legal there are 0.

    Parameters
    ----------
    policy : Policy
        Both players' strategies in a Kuhn or Leduc game (``policy.game``).
    os_game : pyspiel.Game, optional
        The OpenSpiel game; default :func:`openspiel_game` of ``policy.game``.
    mapping : dict, optional
        :func:`infoset_map` of the two games, if already computed (the walk of the whole tree is then
        skipped).

    Returns
    -------
    open_spiel.python.policy.TabularPolicy
        A new tabular policy of both players; ``action_probability_array`` is float64 of shape
        ``(n_information_states, num_distinct_actions)``.

    Raises
    ------
    ValueError
        If OpenSpiel has no equivalent of the game (the bet game).
    AssertionError
        If the two trees disagree while the map is built (see :func:`infoset_map`).
    KeyError
        If ``mapping`` or ``os_game`` belongs to another game (an information state the map does not hold).
    ImportError
        If OpenSpiel is not installed.
    """
    from open_spiel.python.policy import TabularPolicy

    game = policy.game
    os_game = os_game or openspiel_game(game)
    mapping = mapping or infoset_map(game, os_game)
    labels = _ACTION_LABELS[game.name]
    index = {v: k for k, v in labels.items()}
    tab = TabularPolicy(os_game)
    t = game.tree
    table = tab.action_probability_array
    table[:] = 0.0
    for key, row in tab.state_lookup.items():
        _p, node, hand = mapping[key]
        for c in t.children(node):
            table[row, index[t.action[c]]] = policy.probs[c, hand]
    return tab


def from_tabular_policy(game: Game, tabular, mapping: dict | None = None) -> Policy:
    """An OpenSpiel ``TabularPolicy`` as our :class:`Policy`.

    It reads ``tabular.game``, ``tabular.state_lookup`` and ``tabular.action_probability_array``: a
    ``TabularPolicy``, or an object with the same attributes. A policy with only ``action_probabilities``
    (e.g. ``UniformRandomPolicy``) raises ``AttributeError``.

    Parameters
    ----------
    game : Game
        Kuhn or Leduc, the game ``tabular`` is a policy of.
    tabular : open_spiel.python.policy.TabularPolicy
        Both players' strategies; ``tabular.game`` is the OpenSpiel game.
    mapping : dict, optional
        :func:`infoset_map` of the two games, if already computed (the walk of the whole tree is then
        skipped).

    Returns
    -------
    Policy
        The strategies of every information set ``(node, hand)`` of ``game``: each row of
        ``action_probability_array`` restricted to the actions legal there, in OpenSpiel's action order.

    Raises
    ------
    ValueError
        If the OpenSpiel policy misses an information set or holds an invalid distribution.
    AttributeError
        If ``tabular`` has no ``game``, ``state_lookup`` or ``action_probability_array``.
    AssertionError
        If the two trees disagree while the map is built (see :func:`infoset_map`).
    """
    os_game = tabular.game
    mapping = mapping or infoset_map(game, os_game)
    labels = _ACTION_LABELS[game.name]
    t = game.tree
    infosets = {}
    for key, (_p, node, hand) in mapping.items():
        if hasattr(tabular, "state_lookup") and key not in tabular.state_lookup:
            continue
        row = tabular.action_probability_array[tabular.state_lookup[key]]
        infosets[(node, hand)] = np.array([row[a] for a in sorted(labels) if labels[a] in
                                           [t.action[c] for c in t.children(node)]])
    return Policy.from_infosets(game, infosets)
