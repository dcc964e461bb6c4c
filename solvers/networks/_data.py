"""The papers' data sets, generated or loaded locally (docs/networks.md, "Data sets").

Each returns ``(X, y)`` with ``X (n, d)`` and ``y (n, d_out)``, or ``(X, y, X_test, y_test)``
when a test set is asked for (``n_test > 0``). Nothing is downloaded: the digits are the 8 × 8
images scikit-learn ships inside its package (imported only when :func:`digits` is called).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np

from .._validation import as_seed
from ._model import MAX_SAMPLES, MAX_WIDTH, positive_count

__all__ = [
    "digit_bundle",
    "digits",
    "regression_line",
    "teacher_student",
    "teacher_weights",
    "two_gaussians",
    "xor",
]


def _sphere(rng: np.random.Generator, count: int, d: int) -> np.ndarray:
    points = rng.standard_normal((count, d))
    norms = np.linalg.norm(points, axis=1, keepdims=True)
    # a draw of exactly 0 has probability 0, but would divide by 0: redraw it as e₁
    points[norms[:, 0] == 0] = np.eye(d)[0]
    norms[norms == 0] = 1.0
    return points / norms


def _split(X: np.ndarray, y: np.ndarray, n: int, n_test: int) -> tuple[np.ndarray, ...]:
    if n_test == 0:
        return X[:n], y[:n]
    return X[:n], y[:n], X[n:], y[n:]


def teacher_student(
    d: int, k: int, n: int, *, n_test: int = 0, seed: int | None = 0
) -> tuple[np.ndarray, ...]:
    """Kunin et al. App. D.1: inputs uniform on the sphere ``S^{d−1}``, noiseless labels from a
    two-layer ReLU teacher with k units, ``w_i ~ Unif(S^{d−1})``, ``a_i ~ Unif{±1}``."""
    n = positive_count("n", n, MAX_SAMPLES)
    n_test = positive_count("n_test", n_test, MAX_SAMPLES, minimum=0)
    rng = as_seed(seed)
    teacher_w, teacher_a = teacher_weights(d, k, seed=rng)
    X = _sphere(rng, n + n_test, d)
    y = (np.maximum(X @ teacher_w.T, 0.0) @ teacher_a)[:, None]
    return _split(X, y, n, n_test)


def teacher_weights(d: int, k: int, *, seed: int | None = 0) -> tuple[np.ndarray, np.ndarray]:
    """The teacher of :func:`teacher_student` for the same seed: ``(w (k, d), a (k,))`` with
    ``w_j ~ Unif(S^{d−1})`` and ``a_j ~ Unif{±1}`` (Kunin et al. App. D.1) — the first draws of
    that seed, so Kunin et al.'s Fig. 1a can draw the teacher's directions beside its students.
    Given a Generator, it advances it past the teacher (as :func:`teacher_student` does)."""
    d = positive_count("d", d, MAX_WIDTH)
    k = positive_count("k", k, MAX_WIDTH)
    rng = as_seed(seed)
    directions = _sphere(rng, k, d)
    return directions, rng.choice([-1.0, 1.0], size=k)


def regression_line(
    n: int,
    *,
    slope: float = 2.0,
    noise: float = 0.1,
    n_test: int = 0,
    seed: int | None = 0,
) -> tuple[np.ndarray, ...]:
    """Xu & Ziyin's one-dimensional regression (their App. C, Fig. 1 for nonlinear networks):
    ``x ~ N(0, 1)``, ``y = slope·x + noise·N(0, 1)`` (slope 2, noise 0.1 as in the paper).

    All inputs lie on a line, so a two-layer linear network on them is the exact model of
    :mod:`solvers.finite_width` (their Prop. 1; :func:`solvers.networks.linear_limit`)."""
    n = positive_count("n", n, MAX_SAMPLES)
    n_test = positive_count("n_test", n_test, MAX_SAMPLES, minimum=0)
    for name, value in (("slope", slope), ("noise", noise)):
        if not np.isfinite(value):
            raise ValueError(f"{name} must be a finite number; got {value!r}.")
    if noise < 0:
        raise ValueError(f"noise must be >= 0; got {noise!r}.")
    rng = as_seed(seed)
    X = rng.standard_normal((n + n_test, 1))
    y = slope * X + noise * rng.standard_normal((n + n_test, 1))
    return _split(X, y, n, n_test)


def xor(n: int, *, n_test: int = 0, seed: int | None = 0) -> tuple[np.ndarray, ...]:
    """XOR-like task (Kunin et al. Fig. 5): ``x ~ Unif[−1, 1]²``, ``y = sign(x₁x₂)``."""
    n = positive_count("n", n, MAX_SAMPLES)
    n_test = positive_count("n_test", n_test, MAX_SAMPLES, minimum=0)
    rng = as_seed(seed)
    X = rng.uniform(-1.0, 1.0, size=(n + n_test, 2))
    y = np.where(X[:, 0] * X[:, 1] >= 0, 1.0, -1.0)[:, None]
    return _split(X, y, n, n_test)


def two_gaussians(n: int, *, n_test: int = 0, seed: int | None = 0) -> tuple[np.ndarray, ...]:
    """Xu & Ziyin Fig. 7: one-dimensional inputs, half from N(0, 1) labelled −1 and half from
    N(4, 1) labelled +1 (n // 2 of the first kind, the rest of the second, in each set)."""
    n = positive_count("n", n, MAX_SAMPLES)
    n_test = positive_count("n_test", n_test, MAX_SAMPLES, minimum=0)
    rng = as_seed(seed)

    def draw(count: int) -> tuple[np.ndarray, np.ndarray]:
        low = count // 2
        X = np.concatenate([rng.normal(0.0, 1.0, low), rng.normal(4.0, 1.0, count - low)])
        y = np.concatenate([-np.ones(low), np.ones(count - low)])
        return X[:, None], y[:, None]

    X, y = draw(n)
    if n_test == 0:
        return X, y
    return (X, y, *draw(n_test))


@cache
def digit_bundle() -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's bundled digits as read-only arrays ``(pixels (1797, 64) in 0..16,
    labels (1797,))``, read once per process (scikit-learn is imported here, lazily: importing
    the engine must not need it)."""
    from sklearn.datasets import load_digits

    bundle = load_digits()
    pixels, labels = np.array(bundle.data, dtype=np.float64), np.array(bundle.target)
    pixels.flags.writeable = False
    labels.flags.writeable = False
    return pixels, labels


def digits(
    classes: Sequence[int] | None = None,
    n: int | None = None,
    *,
    n_test: int = 0,
    seed: int | None = 0,
) -> tuple[np.ndarray, ...]:
    """scikit-learn's bundled 8 × 8 handwritten digits (1 797 images), the stand-in for MNIST.

    Pixels are divided by 16 (so they lie in [0, 1]), 64 features. ``classes`` picks the digits
    (default all ten); two classes give ``y = ±1`` (the first listed is −1), more give one-hot
    columns in the order listed. ``n`` (and ``n_test``) draw disjoint random subsets of the
    chosen classes (default all of them, in a random order).
    """
    classes = list(range(10)) if classes is None else list(classes)
    if len(classes) < 2 or len(set(classes)) != len(classes):
        raise ValueError(f"classes must list at least two distinct digits; got {classes!r}.")
    for digit in classes:
        if not isinstance(digit, int | np.integer) or not 0 <= digit <= 9:
            raise ValueError(f"classes must be digits 0..9; got {digit!r}.")
    n_test = positive_count("n_test", n_test, MAX_SAMPLES, minimum=0)
    pixels, targets = digit_bundle()
    chosen = np.isin(targets, classes)
    images, labels = pixels[chosen] / 16.0, targets[chosen]
    available = labels.size
    n = available - n_test if n is None else positive_count("n", n, MAX_SAMPLES)
    if n < 1 or n + n_test > available:
        raise ValueError(
            f"n + n_test = {n + n_test} exceeds the {available} images of digits {classes}; "
            "ask for fewer."
        )
    order = as_seed(seed).permutation(available)[: n + n_test]
    images, labels = images[order], labels[order]
    position = np.array([classes.index(int(label)) for label in labels])
    if len(classes) == 2:
        y = np.where(position == 0, -1.0, 1.0)[:, None]
    else:
        y = np.eye(len(classes))[position]
    return _split(images, y, n, n_test)
