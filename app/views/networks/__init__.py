"""Nonlinear and deep networks trained by gradient descent — the experiments of every paper this
project follows, beside their exact linear theory: a trajectory view, Kunin et al.'s τ × δ
map and Xu & Ziyin's sweeps over scale and width. Solver: :mod:`solvers.networks`
(docs/networks.md, docs/network-sweeps.md); theory: docs/theory.md §2 and §4."""

from solvers import networks

from ...core.model import Model
from ..single_neuron import PAPER as KUNIN
from .map import VIEW as MAP
from .sweeps import VIEW as SWEEPS
from .trajectory import VIEW as TRAJECTORY

#: the paper of its presets without a ``paper`` of their own (Kunin et al.'s figures); the
#: others name Xu & Ziyin's or Shan & Bordelon's, whose models come earlier
PAPER = KUNIN

MODEL = Model(order=5, paper=PAPER, views=(TRAJECTORY, MAP, SWEEPS), solver=networks)
