"""Canonical action classes: one ordered action space for every decision of every endgame tree.

A distilled policy must play in trees it was not trained on (other bet abstractions, the Libratus endgames), so
it predicts a distribution over four *ordered* action classes instead of over a tree's own actions:

=========  ==================  =========================================
class      not facing a bet    facing a bet
=========  ==================  =========================================
0          check               fold
1          small bet (<= 3/4)  call
2          big bet (> 3/4)     raise (not all-in)
3          all-in              all-in (as a raise)
=========  ==================  =========================================

Bet sizes are fractions of the pot at the node. The classes are ordered by the chips they commit, so the output
EMD between two strategies is the L1 distance between their cumulative class distributions (unit spacing;
Ganzfried & Yusuf 2017, Algorithm 2). :func:`classes_to_actions` maps a class distribution back onto a node's
actions: a class with several actions splits its probability evenly among them, and the probability of a class
the node lacks moves to the nearest class the node has (the more passive one on a tie).
"""

from __future__ import annotations

import functools

import numpy as np

from games.core.tree import DECISION

__all__ = ["N_CLASSES", "CLASS_LABELS", "SMALL_BET_MAX", "edge_classes", "class_matrix", "class_routing",
           "classes_to_actions",
           "actions_to_classes"]

#: Number of action classes.
N_CLASSES = 4
#: Labels of the classes: ``CLASS_LABELS[facing][c]``.
CLASS_LABELS = (("check", "small bet", "big bet", "all-in"), ("fold", "call", "raise", "all-in"))
#: Largest bet, as a fraction of the pot, that counts as a small bet.
SMALL_BET_MAX = 0.75


def edge_classes(betting) -> np.ndarray:
    """The action class of the edge into every node of a betting tree.

    Parameters
    ----------
    betting : hunl.solver.tree.BettingTree

    Returns
    -------
    numpy.ndarray of int8, shape ``(N,)``
        Class (0-3) of the action leading into each node whose parent is a decision node; -1 elsewhere.

    Raises
    ------
    ValueError
        If an edge label is not one of the tree's action labels (``check``, ``bet X``, ``all-in``, ``fold``,
        ``call``, ``raise to X``).
    """
    t = betting.tree
    out = np.full(t.n_nodes, -1, dtype=np.int8)
    pot = betting.pot
    for n in range(1, t.n_nodes):
        par = int(t.parent[n])
        if t.kind[par] != DECISION:
            continue
        label = t.action[n]
        if label in ("check", "fold"):
            c = 0
        elif label == "call":
            c = 1
        elif label == "all-in":
            c = 3
        elif label.startswith("raise"):
            c = 2
        elif label.startswith("bet "):
            c = 1 if float(label[4:]) <= SMALL_BET_MAX * pot[par] + 1e-9 else 2
        else:
            raise ValueError(f"unknown action label {label!r} at node {n}")
        out[n] = c
    return out


def class_matrix(betting, node: int, classes: np.ndarray | None = None) -> np.ndarray:
    """``(n_actions, 4)`` 0/1 matrix: which class each action of a decision node belongs to.

    Parameters
    ----------
    betting : hunl.solver.tree.BettingTree
        The betting tree holding ``node``.
    node : int
        Id of a decision node of ``betting.tree``.
    classes : numpy.ndarray of int8, shape ``(N,)``, optional
        The class of the edge into every node, as :func:`edge_classes` returns it (pass it to avoid
        recomputing it for each node); default :func:`edge_classes` of ``betting``.

    Returns
    -------
    numpy.ndarray of float64, shape ``(n_actions, 4)``
        Row ``j`` is the one-hot class (columns 0-3, see the module docstring) of the node's ``j``-th action
        (child), in child order; ``(0, 4)`` for a node without children.

    Raises
    ------
    ValueError
        If ``classes`` is not given and an edge label of the tree is not one of the tree's action labels (from
        :func:`edge_classes`).
    """
    classes = edge_classes(betting) if classes is None else classes
    kids = betting.tree.children(int(node))
    m = np.zeros((len(kids), N_CLASSES))
    m[np.arange(len(kids)), classes[kids.start:kids.stop]] = 1.0
    return m


def class_routing(member: np.ndarray) -> np.ndarray:
    """``(4, n_actions)``: where each class's probability goes on a node whose actions have classes ``member``
    (evenly over the actions of the class, or to the nearest class the node has; see the module docstring).

    Read-only, cached per pattern of classes (a tree has a handful).

    Parameters
    ----------
    member : array_like of int, shape ``(n_actions,)``
        The class (0-3) of each action of the node, in child order (:func:`edge_classes` of its children).

    Returns
    -------
    numpy.ndarray of float64, shape ``(4, n_actions)``
        Read-only; row ``c`` is the distribution over the node's actions that class ``c``'s probability goes
        to: ``1 / k`` on each of the ``k`` actions of the nearest class the node has (``c`` itself if present,
        the more passive one on a tie), 0 elsewhere. ``p @ class_routing(member)`` maps class distributions
        ``p``, shape ``(m, 4)``, onto the actions. The same array is returned for the same pattern of classes.

    Raises
    ------
    ValueError
        If ``member`` is empty or a class of it is not 0-3.
    """
    key = tuple(int(c) for c in np.ravel(member))
    if not key:
        raise ValueError("member must name the class of at least one action, got none")
    if min(key) < 0 or max(key) >= N_CLASSES:
        raise ValueError(f"member must hold classes 0-{N_CLASSES - 1} (edge_classes of a node's children), "
                         f"got {key}")
    return _routing(key)


@functools.lru_cache(maxsize=256)
def _routing(member: tuple) -> np.ndarray:
    member = np.asarray(member, dtype=np.int64)
    present = np.zeros(N_CLASSES, dtype=bool)
    present[member] = True
    avail = np.flatnonzero(present)
    route = np.zeros((N_CLASSES, member.size))
    for c in range(N_CLASSES):
        target = avail[np.argmin(np.abs(avail - c) * 2 + (avail > c))]  # nearest; the lower one on a tie
        cols = np.flatnonzero(member == target)
        route[c, cols] = 1.0 / cols.size
    route.setflags(write=False)
    return route


def classes_to_actions(class_probs, member) -> np.ndarray:
    """Map class distributions onto a decision node's actions.

    Parameters
    ----------
    class_probs : array_like of float, shape ``(m, 4)``
        Class distributions (rows sum to 1).
    member : array_like of int, shape ``(n_actions,)``
        The class of each action of the node (:func:`edge_classes` of its children).

    Returns
    -------
    numpy.ndarray of float64, shape ``(m, n_actions)``
        Action probabilities: a class with several actions splits evenly, a missing class goes to the nearest
        present class (the more passive on a tie).

    Raises
    ------
    ValueError
        If ``member`` is not a vector, is empty or holds a value outside 0-3 (:func:`class_routing`), or
        ``class_probs`` has the wrong shape.
    """
    member = np.asarray(member, dtype=np.int64)
    if member.ndim != 1:
        raise ValueError(f"member must be a vector of classes (one per action), got shape {member.shape}")
    p = np.asarray(class_probs, dtype=np.float64)
    if p.ndim != 2 or p.shape[1] != N_CLASSES:
        raise ValueError(f"class_probs must have shape (m, {N_CLASSES}), got {p.shape}")
    return p @ class_routing(member)


def actions_to_classes(action_probs, member) -> np.ndarray:
    """Sum a node's action probabilities, shape ``(m, n_actions)``, into class probabilities ``(m, 4)``.

    The inverse direction of :func:`classes_to_actions`: the probabilities of the actions of one class add up.

    Parameters
    ----------
    action_probs : array_like of float, shape ``(m, n_actions)``
        Action distributions of the node, one row per hand (or sample).
    member : array_like of int, shape ``(n_actions,)``
        The class (0-3) of each action of the node (:func:`edge_classes` of its children).

    Returns
    -------
    numpy.ndarray of float64, shape ``(m, 4)``
        Class probabilities: column ``c`` is the sum of the columns of ``action_probs`` whose action has class
        ``c`` (0 for a class the node lacks); rows sum to what the rows of ``action_probs`` sum to.
    """
    member = np.asarray(member, dtype=np.int64)
    a = np.asarray(action_probs, dtype=np.float64)
    out = np.zeros((a.shape[0], N_CLASSES))
    for j, c in enumerate(member):
        out[:, c] += a[:, j]
    return out
