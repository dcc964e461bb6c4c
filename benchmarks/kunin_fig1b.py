"""Kunin et al.'s Fig. 1b and Fig. 10 at their sizes, as the network map computes them, beside
the figures the authors' notebooks print (docs/networks.md, *The views' sizes*).

    python benchmarks/kunin_fig1b.py [--processes 2]

The map's preset *Fig. 1b at the paper's sizes* (17 × 17 cells of d = 100, n = 1,000, h = 50
networks, 16 seeds, their rate, 1,000 steps): its parts (``map.blocks``) trained by the map's
own code (``map._train_block``) in a pool of processes, then averaged (``map._averaged``), as
a job and its helpers would. About 20 minutes on two cores. Prints the largest and smallest
seed-averaged value of each measure after each recorded step, in the authors' units (losses
on their (1/n)Σ, twice this engine's; the Hamming distance as units changed per input, h times
the share of patterns changed), with theirs beside it where their notebooks print it
(allanraventos/getrichquick, ``two-layer-relu/plot_supporting.ipynb``, cells 10–11).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from multiprocessing import get_context
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# the budget that admits the map uncut (docs/deploying.md, MAP_SECONDS)
os.environ["MAP_SECONDS"], os.environ["JOB_TIME_LIMIT"] = "4200", "8400"

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from anywhere

import numpy as np  # noqa: E402

from app.views.networks import MAP  # noqa: E402
from app.views.networks import map as network_map  # noqa: E402

CONTROLS = MAP.spec.with_overrides(network_map.FIG_1B_PAPER)

#: (step, measure) → (largest, smallest) over their 17 × 17 means of 16 seeds
THEIRS = {
    (100, "kernel distance S"): (0.2385023795068264, 3.149360418319702e-05),
    (1000, "kernel distance S"): (0.5370317734777927, 0.00022741034626960754),
    (100, "Hamming distance"): (20.308249999999997, 0.019937500000000004),
    (1000, "Hamming distance"): (20.9874375, 0.10418750000000002),
    (100, "parameter distance"): (0.7275941635870667, 0.021125402799886357),
    (1000, "parameter distance"): (1.8067048938317307, 0.11547998826201523),
    (100, "training loss"): (0.013349987682026195, 0.00042371969389529634),
    (1000, "training loss"): (0.007320173014769789, 3.968134084134483e-06),
    (100, "test loss"): (0.013551085757447342, 0.001516765863422086),
    (1000, "test loss"): (0.007902069026271866, 0.0008675403343536722),
}


def _part(index: int) -> network_map.Block:
    return network_map._train_block(CONTROLS, index, lambda fraction, text: None)


def _in_their_units(measures: network_map.Measures) -> dict[str, np.ndarray]:
    return {
        "kernel distance S": measures.kernel_distance,
        "Hamming distance": CONTROLS.width * measures.activation_distance,
        "parameter distance": measures.parameter_distance,
        "training loss": 2 * measures.loss,
        "test loss": 2 * measures.test_loss,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()
    assert network_map.within_budget(CONTROLS) == CONTROLS  # uncut
    parts = network_map.blocks(CONTROLS)
    print(
        f"{len(parts)} parts, estimated {network_map.seconds(CONTROLS):.0f} s of one core; "
        f"{args.processes} processes",
        flush=True,
    )
    start = time.perf_counter()
    with get_context("fork").Pool(args.processes) as pool:
        blocks = pool.map(_part, range(len(parts)), chunksize=1)
    wall = time.perf_counter() - start
    result = network_map._averaged(CONTROLS, blocks)
    diverged = int(np.sum(result.diverged >= 0))
    print(f"{wall:.0f} s on {args.processes} processes; cells with a diverged seed: {diverged}\n")
    print(f"{'step':>6}  {'measure':20}  {'this map: max / min':>24}  {'theirs: max / min':>24}")
    for index, step in enumerate(result.recorded):
        ours = _in_their_units(result.mean.at(index))
        for name, values in ours.items():
            theirs = THEIRS.get((int(step), name))
            beside = f"{theirs[0]:.3g} / {theirs[1]:.3g}" if theirs else ""
            mine = f"{values.max():.3g} / {values.min():.3g}"
            print(f"{step:>6}  {name:20}  {mine:>24}  {beside:>24}")
    start_loss = 2 * result.mean.test_loss[0]
    print(
        f"\ntest loss at step 0 (the targets' mean square): {start_loss.mean():.4g}, the seeds' "
        f"spread {2 * result.spread.test_loss[0].mean():.2g}"
    )


if __name__ == "__main__":
    main()
