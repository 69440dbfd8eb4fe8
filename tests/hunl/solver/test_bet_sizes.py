"""The bet-size grammar (hunl.solver.sizes) in the betting tree: worked examples computed by hand.

Unless said otherwise a river endgame with pot 100 and 200 chips behind each player: both have 50 in, so a
player's total after betting ``b`` chips is ``50 + b`` and all-in is a total of 250.
"""

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.core.tree import CHANCE, DECISION
from hunl.poker.cards import parse_cards
from hunl.solver.sizes import Size, format_sizes, parse_size, parse_sizes
from hunl.solver.spot_files import load_spot, parse_spot
from hunl.solver.tree import BetSizes, StreetSizes, TreeConfig, build_tree, describe_tree

RIVER = parse_cards("Ks7d2c9h4s")
TURN = parse_cards("Ks7d2c9h")


def _tree(bets="50%", raises="", all_in=False, pot=100, stack=200, street="river", cap=3, **kw):
    sizes = BetSizes(bets, raises, all_in)
    cfg = TreeConfig(street, pot, stack, turn=sizes, river=sizes, raise_cap=cap, **kw)
    return build_tree(cfg, RIVER if street == "river" else TURN)


def _options(bt, node=0):
    """The bet/raise labels at ``node`` (no check, call, fold)."""
    t = bt.tree
    kids = range(t.child_start[node], t.child_start[node] + t.num_children[node])
    return [t.action[c] for c in kids if t.action[c] not in ("check", "call", "fold")]


def _child(bt, node, label):
    t = bt.tree
    for c in range(t.child_start[node], t.child_start[node] + t.num_children[node]):
        if t.action[c] == label:
            return c
    raise KeyError(label)


def _facing(raises, bet=40, pot=100, stack=200, **kw):
    """IP's raise labels after OOP bets ``bet`` chips (written as a chip size)."""
    bt = _tree(f"{bet}c", raises, pot=pot, stack=stack, **kw)
    return _options(bt, _child(bt, 0, f"bet {bet}"))


# ----------------------------------------------------------------------------------------------- the grammar
def test_tokens_parse_to_sizes():
    assert parse_size("33%") == Size("pot", 0.33)
    assert parse_size(0.33) == parse_size("0.33") == parse_size(" 33% ") == Size("pot", 0.33)
    assert parse_size("2.5x", "raise") == Size("x", 2.5)
    assert parse_size("100c") == Size("chips", 100.0)
    assert parse_size("e") == Size("geometric", math.inf, 0)
    assert parse_size("2e") == Size("geometric", math.inf, 2)
    assert parse_size("2e150%") == Size("geometric", 1.5, 2)
    assert parse_size("a") == parse_size("A") == Size("allin")
    assert parse_sizes("75%, a, 33%") == (Size("pot", 0.33), Size("pot", 0.75), Size("allin"))
    assert parse_sizes(["33%", 0.75, "a"]) == parse_sizes("33%,75%,a")
    assert parse_sizes("") == parse_sizes([]) == ()


@pytest.mark.parametrize("text", ["33%, 75%, a", "2.5x", "100c, 2e150%, e", "12.5%, 3e", ""])
def test_text_round_trips(text):
    role = "raise"
    assert format_sizes(parse_sizes(text, role)) == text
    assert parse_sizes(format_sizes(parse_sizes(text, role)), role) == parse_sizes(text, role)


@pytest.mark.parametrize("value, role, words", [
    ("2.5x", "bet", ["bets: '2.5x' is a raise size", "first bet"]),
    ("33 %", "bet", ["'33 %'", "no space"]),
    ("-5%", "bet", ["'-5%'", "positive"]),
    ("e0", "bet", ["'e0' is not a size"]),
    ("0e", "bet", ["'0e'", "at least 1"]),
    ("1x", "raise", ["'1x'", "greater than 1"]),
    ("0%", "bet", ["'0%'", "positive"]),
    ("50%,,a", "bet", ["empty size"]),
    ("half", "bet", ["'half' is not a size"]),
    ([0.5, -1], "bet", ["-1", "positive"]),
    ([True], "bet", ["True is not a size"]),
])
def test_bad_tokens_name_the_token_and_the_rule(value, role, words):
    with pytest.raises(ValueError) as err:
        parse_sizes(value, role, "bets")
    for w in words:
        assert w in str(err.value)


# ------------------------------------------------------------------------------------------ worked examples
def test_pot_percentage_bet():
    assert _options(_tree("33%")) == ["bet 33"]  # 0.33 * 100


def test_bare_numbers_are_pot_fractions_as_before():
    _same_tree(_tree((0.5, 1.0), (1.0,), True), _tree("50%, 100%, a", "100%, a", None))
    _same_tree(_tree((0.5, 1.0), (1.0,), True), _tree("50%, 100%", "100%", None))
    # OOP bets 50, IP raises pot: to 50 + (150 + 50) = 250, all-in
    assert _options(_tree((0.5,), (1.0,), False), 2) == ["all-in"]


def test_pot_percentage_raise_is_of_the_pot_after_calling():
    # facing 40 into 100: after calling the pot is 180; a 50% raise adds 90: raise to 40 + 90 = 130
    assert _facing("50%") == ["raise to 130"]


def test_raise_multiple():
    assert _facing("2.5x") == ["raise to 100"]  # 2.5 * 40
    assert _facing("3x") == ["raise to 120"]


def test_chips():
    assert _options(_tree("100c")) == ["bet 100"]
    assert _facing("100c") == ["raise to 140"]  # 40 to call, then 100 more


def test_geometric_on_the_river_is_all_in():
    # n = 1: f = ((1 + 2 * 200 / 100) - 1) / 2 = 2: a bet of 200 = all-in
    assert _options(_tree("e")) == ["all-in"]
    # capped at 150%: a bet of 150
    assert _options(_tree("e150%")) == ["bet 150"]


def test_geometric_on_the_turn_sets_up_a_river_all_in():
    # n = 2: f = (sqrt(1 + 4) - 1) / 2 = 0.618...: a bet of 61.8 -> 62
    cfg = TreeConfig("turn", 100, 200, turn=BetSizes("2e", "", False), river=BetSizes("e", "", False))
    bt = build_tree(cfg, TURN)
    assert _options(bt) == ["bet 62"]
    assert _options(_tree("e", street="turn")) == ["bet 62"]  # a bare e on the turn: 2 streets left
    assert _options(_tree("2e50%", street="turn")) == ["bet 50"]  # the cap: 50% of the pot
    # after 62 and a call: pot 224, 138 behind: f = 138 / 224 puts the last 138 in, all-in
    call = _child(bt, _child(bt, 0, "bet 62"), "call")
    assert bt.tree.kind[call] == CHANCE
    river_root = bt.tree.child_start[call]
    assert bt.pot[river_root] == 224 and _options(bt, river_root) == ["all-in"]


def test_geometric_on_the_flop_uses_three_streets():
    # f = (5 ** (1 / 3) - 1) / 2 = 0.35498...: 35.498 -> 35
    sizes = BetSizes("e", "", False)
    cfg = TreeConfig("flop", 100, 200, flop=sizes, turn=sizes, river=sizes, raise_cap=0)
    assert _options(build_tree(cfg, RIVER[:3])) == ["bet 35"]


def test_geometric_raise_uses_the_pot_and_stack_after_calling():
    # facing 40: pot after calling 180, behind after calling 160; n = 1: f = 160 / 180: all-in
    assert _facing("e") == ["all-in"]
    # on the turn, n = 2: f = (sqrt(1 + 2 * 160 / 180) - 1) / 2 = 0.3333..: 60 on top of the call: to 100
    bt = _tree("40c", "e", street="turn")
    assert _options(bt, _child(bt, 0, "bet 40")) == ["raise to 100"]


def test_all_in_token_and_the_automatic_all_in_rule():
    assert _options(_tree("50%, a")) == ["bet 50", "all-in"]
    # an 'a' written: all-in exactly where written (not as a raise)
    sizes = BetSizes("50%, a", "100%")
    assert sizes.all_in is False and sizes.bet_all_in and not sizes.raise_all_in
    assert BetSizes("50%", "100%").all_in is True  # no 'a' anywhere: all-in everywhere, the old default
    assert BetSizes("50%", "100%", all_in=False).all_in is False


def test_rounding_is_half_away_from_zero():
    assert _options(_tree("75%", pot=166)) == ["bet 125"]  # 124.5 -> 125 (Python's round gives 124)
    assert _options(_tree("50%", pot=5)) == ["bet 3"]  # 2.5 -> 3 (round: 2)
    assert _options(_tree("50%", pot=7)) == ["bet 4"]  # 3.5 -> 4 (round: 4 too)
    assert _options(_tree("10%", pot=1)) == ["bet 1"]  # 0.1 -> at least one chip
    # a raise: facing 40 into 101, after calling 181; 50% adds 90.5 -> 91: to 131
    assert _facing("50%", pot=101) == ["raise to 131"]
    # a raise multiple: 2.5 * 41 = 102.5 -> 103
    assert _facing("2.5x", bet=41) == ["raise to 103"]


def test_every_raise_is_at_least_one_chip_over_the_call():
    # facing 1 chip, 1.2x is 1.2 -> 1 = the call: it becomes a raise by one chip, to 2
    assert _facing("1.2x", bet=1) == ["raise to 2"]


# ---------------------------------------------------------------------------------------------- thresholds
def test_force_allin_threshold():
    # a 75 bet leaves 125 behind after a call, the pot then 250: SPR 0.5
    assert _options(_tree("75%", force_allin_threshold=0.5)) == ["all-in"]  # at most 0.5: forced
    assert _options(_tree("75%", force_allin_threshold=0.49)) == ["bet 75"]
    assert _options(_tree("75%", allin_threshold=0.5)) == ["all-in"]  # the old name
    cfg = TreeConfig("river", 100, 200, allin_threshold=0.5)
    assert cfg.force_allin_threshold == cfg.allin_threshold == 0.5
    with pytest.raises(ValueError, match="allin_threshold = 0.3 and force_allin_threshold = 0.5 disagree"):
        TreeConfig("river", 100, 200, allin_threshold=0.3, force_allin_threshold=0.5)


def test_add_allin_threshold():
    # all-in is a bet of 150 = 1.5 pots: added at 1.5, not at 1.49
    assert _options(_tree("50%", stack=150, add_allin_threshold=1.5)) == ["bet 50", "all-in"]
    assert _options(_tree("50%", stack=150, add_allin_threshold=1.49)) == ["bet 50"]
    # facing 50 into 100 with 250 behind: after calling the pot is 200 and 200 behind, all-in = 1.0 pot
    bt = _tree("50c", "", stack=250, add_allin_threshold=1.0)
    assert _options(bt, _child(bt, 0, "bet 50")) == ["all-in"]
    bt = _tree("50c", "", stack=250, add_allin_threshold=0.99)
    assert _options(bt, _child(bt, 0, "bet 50")) == []


def test_merging_threshold():
    # t = 0.1, sizes 30%, 33%, 75%, 100% with 1000 behind (all-in 10 pots). Anchor 10: 11 < 2.2 no removal.
    # Anchor 1.0: remove Y with 2 < 1.1 (1 + Y), Y > 0.818: none. Anchor 0.75: Y > 0.591: none.
    # Anchor 0.33: Y > 0.209: 0.30 is removed.
    bt = _tree("30%, 33%, 75%, 100%, a", stack=1000, merging_threshold=0.1)
    assert _options(bt) == ["bet 33", "bet 75", "bet 100", "all-in"]
    # 115 behind: all-in is 1.15 pots; 2.15 < 1.1 * (1 + 1.0) = 2.2 removes 100%, 1.925 keeps 75%
    bt = _tree("75%, 100%, a", stack=115, merging_threshold=0.1)
    assert _options(bt) == ["bet 75", "all-in"]
    # 120 behind: 2.2 < 2.2 is false: equality keeps the 100% bet
    bt = _tree("75%, 100%, a", stack=120, merging_threshold=0.1)
    assert _options(bt) == ["bet 75", "bet 100", "all-in"]
    assert _options(_tree("30%, 33%", stack=1000)) == ["bet 30", "bet 33"]  # 0: no merging


# ------------------------------------------------------------------------------------- per player and donk
def test_per_player_sizes():
    river = StreetSizes(oop=BetSizes("33%", "2.5x", False), ip=BetSizes("75%", "3x", False))
    bt = build_tree(TreeConfig("river", 100, 200, river=river, raise_cap=1), RIVER)
    assert _options(bt) == ["bet 33"]
    assert _options(bt, _child(bt, 0, "check")) == ["bet 75"]
    assert _options(bt, _child(bt, 0, "bet 33")) == ["raise to 99"]  # IP: 3 * 33
    # OOP facing IP's 75: 2.5 * 75 = 187.5 -> 188
    assert _options(bt, _child(bt, _child(bt, 0, "check"), "bet 75")) == ["raise to 188"]
    assert bt.config.sizes("river", 1) == BetSizes("75%", "3x", False)
    assert bt.config.sizes(5, 0) == BetSizes("33%", "2.5x", False)


def _river_roots(bt):
    """{history of the turn line: (pot, OOP's river bet labels)} over the river roots (first card only)."""
    t = bt.tree
    out = {}
    for node in np.flatnonzero((t.kind == CHANCE) & (bt.street == 4)):
        root = int(t.child_start[node])
        assert t.kind[root] == DECISION and t.player[root] == 0
        out[t.history[node]] = (float(bt.pot[root]), _options(bt, root))
    return out


def test_donk_sizes_after_oop_calls():
    turn = BetSizes("50%", "2.5x", False)
    river = StreetSizes(BetSizes("50%", "", False), BetSizes("50%", "", False), donk="25%")
    bt = build_tree(TreeConfig("turn", 100, 1000, turn=turn, river=river, raise_cap=1), TURN)
    roots = _river_roots(bt)
    # OOP called IP's turn bet: the donk size, 25% of 200
    assert roots["check/bet 50/call"] == (200.0, ["bet 50"])
    # IP called: OOP's normal size, 50% of 200 -- same contributions as the line above, another template
    assert roots["bet 50/call"] == (200.0, ["bet 100"])
    assert roots["check/check"] == (100.0, ["bet 50"])
    # OOP called IP's raise (IP the last aggressor): donk, 25% of 350 = 87.5 -> 88
    assert roots["bet 50/raise to 125/call"] == (350.0, ["bet 88"])
    # IP called OOP's raise: 50% of 350 = 175
    assert roots["check/bet 50/raise to 125/call"] == (350.0, ["bet 175"])
    # without donk sizes OOP's bets apply everywhere
    plain = build_tree(TreeConfig("turn", 100, 1000, turn=turn, river=BetSizes("50%", "", False), raise_cap=1),
                       TURN)
    assert _river_roots(plain)["check/bet 50/call"] == (200.0, ["bet 100"])
    assert plain.tree.n_nodes == bt.tree.n_nodes


def test_donk_errors():
    with pytest.raises(ValueError, match="donk: '2x' is a raise size"):
        StreetSizes(donk="2x")
    with pytest.raises(ValueError, match="flop.donk"):
        TreeConfig("flop", 100, 200, flop=StreetSizes(donk="50%"))


# ----------------------------------------------------------------------------------------------- property
_TOKENS = st.one_of(
    st.integers(1, 400).map(lambda k: f"{k}%"),
    st.integers(11, 50).map(lambda k: f"{k / 10:g}x"),
    st.integers(1, 500).map(lambda k: f"{k}c"),
    st.sampled_from(["e", "2e", "e75%", "a"]),
    st.floats(0.01, 3.0).map(lambda v: round(v, 3)),
)


@settings(max_examples=60, deadline=None)
@given(bets=st.lists(_TOKENS.filter(lambda x: not str(x).endswith("x")), max_size=4),
       raises=st.lists(_TOKENS, max_size=3), all_in=st.booleans(), pot=st.integers(1, 5000),
       stack=st.integers(0, 20000), cap=st.integers(0, 3),
       thresholds=st.tuples(st.sampled_from([0, 0.5, 1.5]), st.sampled_from([0, 0.15]),
                            st.sampled_from([0, 0.1])))
def test_amounts_are_whole_increasing_and_capped(bets, raises, all_in, pot, stack, cap, thresholds):
    add, force, merge = thresholds
    bt = _tree(bets, raises, all_in, pot=pot, stack=stack, cap=cap, add_allin_threshold=add,
               force_allin_threshold=force, merging_threshold=merge)
    t, c = bt.tree, bt.contributions
    top = pot / 2 + stack
    for node in np.flatnonzero(t.kind == DECISION):
        p = int(t.player[node])
        kids = np.arange(t.child_start[node], t.child_start[node] + t.num_children[node])
        sized = [k for k in kids if t.action[k] not in ("check", "call", "fold")]
        totals = c[sized, p]
        put = totals - c[node, p]  # chips put in by the action
        assert np.all(put == np.round(put)) and np.all(put >= 1)
        assert np.all(totals <= top) and np.all(totals > c[node, 1 - p])
        assert np.all(np.diff(totals) > 0)
        assert all((t.action[k] == "all-in") == (c[k, p] == top) for k in sized)
        facing = c[node, 1 - p] > c[node, p]
        may_bet = not facing or int(bt.raises[node]) - 1 < cap  # the raise cap
        if all_in and may_bet and c[node, 1 - p] < top:
            assert sized and t.action[sized[-1]] == "all-in"


# ------------------------------------------------------------------------------------- text and spot files
def test_to_text_and_back():
    sizes = BetSizes("33%, 75%, a", "2.5x")
    assert sizes.to_text() == {"bets": "33%, 75%, a", "raises": "2.5x"}
    assert BetSizes(**sizes.to_text()) == sizes
    old = BetSizes((0.5, 1.0), (1.0,), True)
    assert old.to_text() == {"bets": "50%, 100%", "raises": "100%"}
    assert old.to_data() == {"bets": [0.5, 1.0], "raises": [1.0], "all_in": True}
    assert BetSizes(**old.to_data()) == old == BetSizes(**old.to_text())
    forced = BetSizes("50%, a", "100%", all_in=True)
    assert forced.to_text()["all_in"] is True and BetSizes(**forced.to_text()) == forced
    street = StreetSizes(sizes, old, donk="25%")
    assert StreetSizes(**street.to_text()) == street


def _write(tmp_path, text, name="s.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


_HEAD = """board = "Ks7d2c9h4s"
pot = 100
stack = 200
[ranges]
oop = "AA,KK"
ip = "QQ,JJ"
"""


def test_spot_file_sizes_per_player(tmp_path):
    spot = load_spot(_write(tmp_path, _HEAD + """
[bet_sizes.river]
bets = "33%, a"
raises = "2.5x"
[bet_sizes.river.ip]
bets = ["75%"]
"""))
    assert spot.river_sizes == StreetSizes(BetSizes("33%, a", "2.5x"), BetSizes("75%", "2.5x"))
    assert spot.river_sizes.oop.all_in is False and spot.river_sizes.ip.all_in is True


@pytest.mark.parametrize("table, words", [
    ('[bet_sizes.river.oop]\nraises = "0.5x"', ["bet_sizes.river.oop.raises: '0.5x'", "greater than 1"]),
    ('[bet_sizes.river]\nbets = "2.5x"', ["bet_sizes.river.bets: '2.5x' is a raise size"]),
    ('[bet_sizes.river]\nbets = "33 %"', ["bet_sizes.river.bets: '33 %'", "no space"]),
    ('[bet_sizes.river]\ndonk = "-5%"', ["bet_sizes.river.donk: '-5%'", "positive"]),
    ('[bet_sizes.river.ip]\nbet = "50%"', ["bet_sizes.river.ip.bet", "did you mean 'bets'"]),
    ('[bet_sizes]\nmerging_threshold = -1', ["bet_sizes.merging_threshold must be a number >= 0"]),
    ('[bet_sizes]\nallin_threshold = 0.2\nforce_allin_threshold = 0.3',
     ["bet_sizes.force_allin_threshold = 0.3 differs from bet_sizes.allin_threshold = 0.2"]),
    ('[bet_sizes.river]\nbets = {a = 1}', ["bet_sizes.river.bets must be a string of sizes"]),
])
def test_spot_file_size_errors_name_the_field(tmp_path, table, words):
    with pytest.raises(ValueError) as err:
        load_spot(_write(tmp_path, _HEAD + table + "\n"))
    for w in words:
        assert w in str(err.value)


def test_flop_donk_in_a_spot_file_is_an_error(tmp_path):
    head = _HEAD.replace("Ks7d2c9h4s", "Ks7d2c")
    with pytest.raises(ValueError, match="bet_sizes.flop.donk: the flop has no donk bet"):
        load_spot(_write(tmp_path, head + '[bet_sizes.flop]\ndonk = "50%"\n'))


def _same_tree(a, b):
    assert a.tree.n_nodes == b.tree.n_nodes
    np.testing.assert_array_equal(a.contributions, b.contributions)
    assert a.tree.action == b.tree.action


@pytest.mark.parametrize("name", ["turn_syntax.toml", "river_libratus_sizes.json", "libratus_subgame4.toml",
                                  "river_small.toml"])
def test_spot_to_dict_round_trip(name):
    from tests.hunl.solver.test_spot import EXAMPLES

    spot = load_spot(EXAMPLES / name)
    data = json.loads(json.dumps(spot.to_dict()))  # JSON-ready
    again = parse_spot(data, source="round trip")
    assert again.to_dict() == spot.to_dict()
    np.testing.assert_array_equal(again.ranges, spot.ranges)
    _same_tree(again.betting_tree(), spot.betting_tree())


def test_the_syntax_example_spot():
    from tests.hunl.solver.test_spot import EXAMPLES

    spot = load_spot(EXAMPLES / "turn_syntax.toml")
    assert spot.turn_sizes == BetSizes("33%, 75%, a", "2.5x")
    assert spot.river_sizes == StreetSizes(BetSizes("33%, e", "2.5x, a"), BetSizes("50%, 100%", "2.5x, a"),
                                           donk="25%")
    assert (spot.add_allin_threshold, spot.force_allin_threshold, spot.merging_threshold) == (1.5, 0.15, 0.1)
    lines = spot.betting_tree().lines()
    # pot 600: 33% = 198, 2.5x = 495, then 2.5 * 495 = 1237.5 -> 1238; facing 495 the all-in is
    # (2700 - 495) / (600 + 990) = 1.39 pots <= 1.5: added
    assert "OOP bet 198 / IP raise to 495 / OOP raise to 1238 / IP call" in lines
    assert "OOP bet 198 / IP raise to 495 / OOP raise to 2700 (all-in) / IP fold" in lines
    # facing 198 the all-in is 2502 / 996 = 2.5 pots: not added (no 'a' in the raises)
    assert not any(x.startswith("OOP bet 198 / IP raise to 2700") for x in lines)


def test_describe_tree_lists_the_lines():
    bt = _tree("40%", "2.5x, a", cap=1)
    text = describe_tree(bt)
    # root; check, bet 40; after check: check, bet 40; each bet 40: fold, call, raise to 100, all-in; each raise
    # 2 (cap 1): 1 + 2 + 2 + 4 + 4 + 2 * 4 = 21 nodes, 8 decisions (root, 2 x (check/bet node), 4 raises ... )
    assert "21 nodes: 8 decisions, 13 terminals, 0 chance" in text
    assert bt.lines() == (
        "OOP check / IP check",
        "OOP check / IP bet 40 / OOP fold",
        "OOP check / IP bet 40 / OOP call",
        "OOP check / IP bet 40 / OOP raise to 100 / IP fold",
        "OOP check / IP bet 40 / OOP raise to 100 / IP call",
        "OOP check / IP bet 40 / OOP raise to 200 (all-in) / IP fold",
        "OOP check / IP bet 40 / OOP raise to 200 (all-in) / IP call",
        "OOP bet 40 / IP fold",
        "OOP bet 40 / IP call",
        "OOP bet 40 / IP raise to 100 / OOP fold",
        "OOP bet 40 / IP raise to 100 / OOP call",
        "OOP bet 40 / IP raise to 200 (all-in) / OOP fold",
        "OOP bet 40 / IP raise to 200 (all-in) / OOP call",
    )
    assert bt.lines(max_depth=2)[:2] == ("OOP check / IP check", "OOP check / IP bet 40 / ...")
    with pytest.raises(ValueError, match="max_depth"):
        bt.lines(max_depth=0)


#: Public nodes of the example spots (examples/spots/README.md), with suit isomorphism. flop_Td9d6h.toml
#: (710,986) is pinned in test_spot.py.
EXAMPLE_NODES = {"river_small.toml": 57, "turn_small.toml": 7881, "river_libratus_sizes.json": 57,
                 "libratus_subgame2.toml": 8637, "libratus_subgame3.toml": 93, "libratus_subgame4.toml": 57,
                 "turn_QsJh2h8d.toml": 7089, "turn_syntax.toml": 14265}


@pytest.mark.parametrize("name", sorted(EXAMPLE_NODES))
def test_example_spots_have_the_documented_node_counts(name):
    from tests.hunl.solver.test_spot import EXAMPLES

    assert load_spot(EXAMPLES / name).betting_tree().tree.n_nodes == EXAMPLE_NODES[name]


def test_holdem_endgame_takes_per_player_mappings():
    from hunl.solver.game import HoldemEndgame

    ranges = ["AA,KK", "QQ,JJ"]
    river = {"oop": {"bets": "33%", "raises": ""}, "ip": {"bets": "75%", "raises": "3x"}, "donk": None}
    a = HoldemEndgame("Ks7d2c9h4s", ranges, 100, 200, bet_sizes={"river": river}, merging_threshold=0.1)
    b = HoldemEndgame("Ks7d2c9h4s", ranges, 100, 200, merging_threshold=0.1,
                      bet_sizes={"river": StreetSizes(BetSizes("33%", ""), BetSizes("75%", "3x"))})
    _same_tree(a.betting, b.betting)
    assert _options(a.betting) == ["bet 33", "all-in"] and a.config.merging_threshold == 0.1
    with pytest.raises(ValueError, match=r"bet_sizes\['river'\]: oop.bets: '2x' is a raise size"):
        HoldemEndgame("Ks7d2c9h4s", ranges, 100, 200, bet_sizes={"river": {"oop": {"bets": "2x"}}})


def test_spot_threshold_alias():
    from tests.hunl.solver.test_spot import EXAMPLES

    spot = load_spot(EXAMPLES / "river_small.toml")
    assert spot.force_allin_threshold == spot.allin_threshold == 0.0
    moved = spot.replace(allin_threshold=0.3)
    assert moved.force_allin_threshold == moved.allin_threshold == 0.3
    assert moved.replace(force_allin_threshold=0.2).allin_threshold == 0.2
    assert moved.tree_config().force_allin_threshold == 0.3
    with pytest.raises(ValueError, match="disagree"):
        spot.replace(allin_threshold=0.3, force_allin_threshold=0.2)
