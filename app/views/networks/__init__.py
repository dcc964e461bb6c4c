"""Nonlinear and deep networks trained by gradient descent — the experiments of every paper this
project follows, beside their exact linear theory: a trajectory view and Kunin et al.'s τ × δ
map. Solver: :mod:`solvers.networks` (docs/networks.md); theory: docs/theory.md §2 and §4."""

from solvers import networks

from ...core.model import Model
from ..single_neuron import PAPER as KUNIN
from .map import VIEW as MAP
from .trajectory import VIEW as TRAJECTORY

#: the paper of its presets without a ``paper`` of their own (Kunin et al.'s figures); the
#: others name Xu & Ziyin's or Shan & Bordelon's, whose models come earlier
PAPER = KUNIN

MODEL = Model(order=5, paper=PAPER, views=(TRAJECTORY, MAP), solver=networks)
