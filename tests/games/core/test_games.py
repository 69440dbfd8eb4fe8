"""The game interface: Kuhn, Leduc and the bet game pass check_game; broken games and bad inputs are caught."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.betgame import BetGame, BetGameTree
from games.core import (
    CHANCE,
    DECISION,
    TERMINAL,
    Game,
    NodeSpec,
    Policy,
    PublicTree,
    check_game,
    expected_value,
    load_game,
)
from games.core.check import GameCheckError
from games.kuhn import KuhnPoker
from games.leduc import LeducHoldem
from rulelearn.data.distributions import random_deal


@pytest.fixture(scope="module")
def kuhn():
    return KuhnPoker()


@pytest.fixture(scope="module")
def leduc():
    return LeducHoldem()


def test_kuhn_and_leduc_pass_check_game_with_published_sizes(kuhn, leduc):
    rk = check_game(kuhn, n_games=5000)
    assert rk.n_infosets == (6, 6)  # 12 information sets (Bowling et al. 2015)
    rl = check_game(leduc, n_games=5000)
    assert sum(rl.n_infosets) == 936  # 288 up to suit isomorphism; OpenSpiel's leduc_poker has 936
    assert rl.n_chance == 5  # one public-card deal after each way round 1 can end in a call


def test_uniform_play_value_is_exact(kuhn):
    # Uniform random Kuhn: enumerate by hand. P1 pass (1/2): P2 pass -> showdown +-1 (avg 0); P2 bet -> P1 folds
    # (-1) or calls (+-2, avg 0): -1/2 * 1/2 ... total expected value 1/8 to player 1 (OpenSpiel agrees).
    assert expected_value(kuhn, Policy.uniform(kuhn)) == pytest.approx(0.125, abs=1e-15)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 8))
def test_betgame_tree_passes_check_game_on_random_deals(seed, n):
    rules = BetGame(n_cards=n, bets=(0.0, 0.5, 1.0, 3.0), stack=3.0)
    probs = random_deal(n, np.random.default_rng(seed))[2]
    check_game(BetGameTree(probs, rules), n_games=2000, seed=seed % 1000)


def test_values_is_the_counterfactual_value(leduc):
    t = leduc.tree
    node = int(t.terminal_nodes[-1])  # a round-2 showdown
    rng = np.random.default_rng(1)
    r2 = rng.random(6)
    v = leduc.values(node, 0, r2)
    b = t.board[node]
    want = [sum(leduc.deal[b, i, j] * leduc.payoff(node, i, j) * r2[j] for j in range(6) if leduc.deal[b, i, j])
            for i in range(6)]
    np.testing.assert_allclose(v, want, rtol=0, atol=1e-15)
    # card removal: the hand that is the board card has value 0
    card = int(t.history[node].split("/")[[k for k, a in enumerate(t.history[node].split("/")) if a.isdigit()][0]])
    assert v[card] == 0.0


def test_values_rejects_bad_input(kuhn):
    with pytest.raises(ValueError, match="not terminal"):
        kuhn.values(0, 0, np.ones(3))
    term = int(kuhn.tree.terminal_nodes[0])
    with pytest.raises(ValueError, match="shape"):
        kuhn.values(term, 0, np.ones(4))
    with pytest.raises(ValueError, match="player"):
        kuhn.values(term, 2, np.ones(3))
    with pytest.raises(ValueError, match="NaN"):
        kuhn.values(term, 1, np.array([1.0, np.nan, 0.0]))
    with pytest.raises(ValueError, match="no public node"):
        kuhn.values("x/y", 0, np.ones(3))


def test_load_game_names_and_unknown_name():
    assert load_game("Kuhn").name == "kuhn"
    assert load_game("betgame").tree.n_nodes == 92
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        load_game("chess")


def test_tree_build_rejects_malformed_nodes():
    with pytest.raises(ValueError, match="player 0 or 1"):
        PublicTree.build(NodeSpec(DECISION, player=2, children=[("a", NodeSpec(TERMINAL))]))
    with pytest.raises(ValueError, match="at least one child"):
        PublicTree.build(NodeSpec(CHANCE))
    with pytest.raises(ValueError, match="cannot have children"):
        PublicTree.build(NodeSpec(TERMINAL, children=[("a", NodeSpec(TERMINAL))]))


class _Broken(Game):
    """Kuhn with a defect injected, to show check_game fails."""

    name = "broken"

    def __init__(self, defect):
        k = KuhnPoker()
        self.tree, self.num_hands, self.pot = k.tree, k.num_hands, k.pot
        self.deal, self.showdown = k.deal.copy(), k.showdown.copy()
        self._k = k
        self.defect = defect
        if defect == "deal":
            self.deal[0, 0, 1] += 0.01
        if defect == "showdown":
            self.showdown[0] = -self.showdown[0]

    def hand_labels(self, player):
        return self._k.hand_labels(player)

    def payoff(self, node, i, j):
        return self._k.payoff(node, i, j)


@pytest.mark.parametrize("defect, match", [("deal", "sums to"), ("showdown", "disagrees")])
def test_check_game_catches_defects(defect, match):
    with pytest.raises(GameCheckError, match=match):
        check_game(_Broken(defect), n_games=500)


def test_check_game_catches_chance_that_does_not_partition(leduc):
    class Leaky(LeducHoldem):
        name = "leaky"

        def __init__(self):
            super().__init__()
            self.deal = self.deal.copy()
            self.deal[3] *= 0.5  # public card 2 half as likely as it should be

    with pytest.raises(GameCheckError, match="partition"):
        check_game(Leaky(), n_games=100)


@pytest.mark.parametrize("name", ["games.core.best_response", "games.core.cfr", "games.core.sequence_lp"])
def test_docstring_examples(name):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
