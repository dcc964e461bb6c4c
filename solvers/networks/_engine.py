"""Batched forward and backward passes with reusable buffers, and the empirical NTK built from
them (docs/networks.md (N3)–(N6)).

A :class:`Passes` holds C networks ("cells") of one architecture as arrays with a leading cell
axis and runs every layer as one batched matmul over the cells. Its buffers are allocated once
and reused at every gradient-descent step, so the training loop allocates (almost) nothing.
"""

from __future__ import annotations

import numpy as np

from ._model import activate, sigmoid

__all__ = [
    "Passes",
    "cross_ntk_from_passes",
    "ntk_from_layers",
    "ntk_from_passes",
    "objective",
    "spectral_norm",
]

LOSSES = ("mse", "bce")


class Passes:
    """Forward and backward passes of C cells on one input set.

    ``X`` is ``(n, d_in)`` (shared by every cell: each layer-1 matmul then broadcasts it) or
    ``(C, n, d_in)``. ``slopes`` keeps σ'(z) of the hidden layers, which back-propagation and the
    NTK need and a plain forward pass does not.
    """

    def __init__(
        self, widths: tuple[int, ...], activation: str, X: np.ndarray, cells: int, slopes: bool
    ) -> None:
        self.widths, self.activation, self.X, self.cells = widths, activation, X, cells
        self.samples = X.shape[-2]
        self.depth = len(widths) - 1
        shapes = [(cells, self.samples, width) for width in widths[1:]]
        self.z = [np.empty(shape) for shape in shapes]
        linear = activation == "linear"
        self.values = [z if linear else np.empty_like(z) for z in self.z[:-1]]
        self.slopes: list[np.ndarray | None] = [
            None if linear or not slopes else np.empty_like(z) for z in self.z[:-1]
        ]
        self.keep_slopes = slopes and not linear
        self.output = np.empty(shapes[-1])
        self.residual = np.empty(shapes[-1])

    def inputs(self, layer: int) -> np.ndarray:
        """The input of weight layer ``layer`` (0-based): X or the previous layer's σ(z)."""
        return self.X if layer == 0 else self.values[layer - 1]

    def forward(self, weights: list[np.ndarray], gamma: np.ndarray) -> np.ndarray:
        """Fill the pre-activations z, σ(z) (and σ'(z)); return the outputs ``(C, n, d_out)``.

        ``gamma`` is ``(C, 1, 1)``.
        """
        for layer, W in enumerate(weights):
            np.matmul(self.inputs(layer), W.transpose(0, 2, 1), out=self.z[layer])
            if layer < self.depth - 1:
                activate(
                    self.activation,
                    self.z[layer],
                    None if self.activation == "linear" else self.values[layer],
                    self.slopes[layer],
                    need_slope=self.keep_slopes,
                )
        return np.multiply(self.z[-1], gamma, out=self.output)

    def backward(
        self, weights: list[np.ndarray], top: np.ndarray, grads: list[np.ndarray]
    ) -> list[np.ndarray]:
        """Back-propagate ``top = ∂L/∂z_L`` (C, n, d_out) and fill ``grads[l] = ∂L/∂W_l``
        (docs/networks.md (N5)).

        The z buffers are overwritten with ``∂L/∂z_l`` (they are not needed after the forward
        pass), so call this after everything that reads z for the current step.

        Below a single output unit, ``∂L/∂z = (g ⊗ w) ⊙ σ'(z)`` is an outer product; it is kept
        as ``g ⊙ σ'(z)`` with the row w folded into the (small) weights and gradient instead,
        which saves a pass over the (C, n, width) arrays.
        """
        upstream, row = top, None  # true ∂L/∂z_l = upstream ⊙ row (row broadcast over samples)
        for layer in range(self.depth - 1, -1, -1):
            # ∂L/∂W_l = (∂L/∂z_l)ᵀ · input_l, summed over the samples by the matmul
            np.matmul(upstream.transpose(0, 2, 1), self.inputs(layer), out=grads[layer])
            if row is not None:
                grads[layer] *= row[:, :, None]
            if layer == 0:
                break
            W = weights[layer] if row is None else weights[layer] * row[:, :, None]
            below = self.z[layer - 1]
            slope = self.slopes[layer - 1]
            if upstream.shape[-1] == 1 and slope is not None:
                np.multiply(slope, upstream, out=below)
                row = W[:, 0, :]
            else:
                if upstream.shape[-1] == 1:  # an outer product: broadcasting beats a matmul
                    np.multiply(upstream, W, out=below)
                else:
                    np.matmul(upstream, W, out=below)
                if slope is not None:
                    below *= slope
                row = None
            upstream = below
        return grads

    def patterns(self) -> list[np.ndarray]:
        """Activation patterns ``z > 0`` of the hidden layers (docs/networks.md (N9))."""
        return [z > 0 for z in self.z[:-1]]


def objective(
    kind: str, output: np.ndarray, y: np.ndarray, residual: np.ndarray | None = None
) -> np.ndarray:
    """Loss per cell (docs/networks.md (N4)); with ``residual`` given, also fill it with
    ``∂L/∂f`` (same shape as the outputs).

    ``mse``: ``(1/2n)Σ_μ‖f(x_μ) − y_μ‖²``; ``bce``: ``(1/n)Σ_μ Σ_c log(1 + e^{−y f})`` for ±1
    labels, through ``logaddexp`` so that no margin overflows.
    """
    samples = output.shape[-2]
    if kind == "mse":
        difference = np.subtract(output, y, out=residual)
        loss = 0.5 / samples * np.einsum("...ij,...ij->...", difference, difference)
        if residual is not None:
            residual *= 1.0 / samples
        return loss
    margin = np.multiply(y, output, out=residual)
    loss = np.sum(np.logaddexp(0.0, -margin), axis=(-2, -1)) / samples
    if residual is not None:
        # ∂/∂f log(1 + e^{−yf}) = −y·sigmoid(−yf)
        np.negative(margin, out=residual)
        sigmoid(residual, out=residual)
        residual *= y
        residual *= -1.0 / samples
    return loss


def ntk_from_layers(
    inputs: list[np.ndarray],
    slopes: list[np.ndarray | None],
    weights: list[np.ndarray],
    gamma: np.ndarray,
    etas: list[np.ndarray],
    input_gram: np.ndarray | None = None,
) -> np.ndarray:
    """Empirical NTK ``(C, n·d_out, n·d_out)`` from one forward pass (docs/networks.md (N6)).

    ``inputs[l]`` is the input of weight layer l, ``(C, n, n_l)`` (or ``(n, n_0)`` for data shared
    by the cells), ``slopes[l]`` is σ'(z_l) of hidden layer l (None for the linear activation),
    ``gamma`` and each ``etas[l]`` are ``(C,)``; ``input_gram`` may hold ``X Xᵀ`` of shared
    data, which never changes.

    Per layer, ``∂f_c(x_μ)/∂W_l[i, j] = Δ_l[μ, c, i]·a_{l−1}[μ, j]`` with the back-propagated
    ``Δ_L = γ I`` and ``Δ_l = (Δ_{l+1} W_{l+1}) ⊙ σ'(z_l)``, so each layer adds the Hadamard
    product ``η_l (Δ_l Δ_lᵀ) ⊙ (a_{l−1}a_{l−1}ᵀ)``: O(P² n_l + n² n_{l−1}) per layer, without
    ever forming the Jacobian. √η_l is folded into the factors, which are narrower than P².
    """
    cells = weights[0].shape[0]
    samples, d_out = inputs[0].shape[-2], weights[-1].shape[-2]
    size = samples * d_out
    depth = len(weights)

    def gram(layer: int, scale: np.ndarray | None = None) -> np.ndarray:
        """``s² a aᵀ`` of the layer's input, scaled on whichever side is smaller."""
        factor = inputs[layer]
        if layer == 0 and factor.ndim == 2:
            shared = input_gram if input_gram is not None else factor @ factor.T
            return shared if scale is None else scale[:, None, None] ** 2 * shared
        if scale is not None and factor.shape[-1] < factor.shape[-2]:
            factor = factor * scale[:, None, None]
            scale = None
        product = factor @ factor.transpose(0, 2, 1)
        if scale is not None:
            product *= scale[:, None, None] ** 2
        return product

    # Output layer: ∂f_c/∂W_L[i, j] = γ δ_ci a_{L−1, j} → η_L γ² (a aᵀ) ⊗ I.
    last = gram(depth - 1, np.sqrt(etas[-1]) * np.abs(gamma))
    if d_out == 1:
        kernel = np.array(np.broadcast_to(last, (cells, samples, samples)))
        blocks = kernel.reshape(cells, samples, 1, samples, 1)
    else:
        blocks = np.zeros((cells, samples, d_out, samples, d_out))
        for c in range(d_out):
            blocks[:, :, c, :, c] = last
        kernel = blocks.reshape(cells, size, size)
    if depth > 1:
        # Δ_{L−1}[μ, c, :] = γ W_L[c, :] ⊙ σ'(z_{L−1}[μ, :])
        delta = (gamma[:, None, None] * weights[-1])[:, None, :, :]
    for layer in range(depth - 2, -1, -1):
        slope = slopes[layer]
        # √η_l goes on the factor before it is broadcast over the samples (the cheap side)
        root = np.sqrt(etas[layer])[:, None, None, None]
        scaled = root * delta
        if slope is not None:
            scaled = scaled * slope[:, :, None, :]
        scaled = np.broadcast_to(scaled, (cells, samples, d_out, delta.shape[-1]))
        flat = scaled.reshape(cells, size, -1)
        outer = flat @ flat.transpose(0, 2, 1)
        view = outer.reshape(cells, samples, d_out, samples, d_out)
        view *= gram(layer)[..., :, None, :, None]
        blocks += view
        if layer > 0:
            if slope is not None:
                delta = delta * slope[:, :, None, :]
            delta = np.broadcast_to(delta, (cells, samples, d_out, delta.shape[-1]))
            delta = delta @ weights[layer][:, None, :, :]
    return kernel


def ntk_from_passes(
    passes: Passes,
    weights: list[np.ndarray],
    gamma: np.ndarray,
    etas: list[np.ndarray],
    cells: slice = slice(None),
    input_gram: np.ndarray | None = None,
) -> np.ndarray:
    """:func:`ntk_from_layers` for the cells ``cells`` of a forward pass with slopes."""
    inputs = [passes.inputs(0) if passes.X.ndim == 2 else passes.X[cells]]
    inputs += [value[cells] for value in passes.values]
    slopes = [None if slope is None else slope[cells] for slope in passes.slopes]
    return ntk_from_layers(
        inputs,
        slopes,
        [W[cells] for W in weights],
        gamma[cells],
        [eta[cells] for eta in etas],
        input_gram,
    )


def cross_ntk_from_passes(
    first: Passes,
    second: Passes,
    weights: list[np.ndarray],
    gamma: np.ndarray,
    etas: list[np.ndarray],
) -> np.ndarray:
    """The NTK between two input sets, ``(C, n_a·d_out, n_b·d_out)`` sample-major on both
    sides (docs/networks.md (N6)), from a forward pass with slopes on each.

    The same sum over layers as :func:`ntk_from_layers`, with each factor taken on its own
    side: layer l adds ``η_l (Δ_l^a Δ_l^bᵀ) ⊙ (a_{l−1}^a a_{l−1}^bᵀ)``. Written plainly (it
    serves single evaluations, not the training loop); on one input set it is that NTK.
    """
    cells, d_out, depth = weights[0].shape[0], weights[-1].shape[-2], len(weights)
    rows, columns = first.samples, second.samples

    def gram(layer: int) -> np.ndarray:
        left, right = first.inputs(layer), second.inputs(layer)
        return left @ np.swapaxes(right, -1, -2)  # (C, n_a, n_b), or (n_a, n_b) shared

    blocks = np.zeros((cells, rows, d_out, columns, d_out))
    last = (etas[-1] * gamma**2)[:, None, None] * gram(depth - 1)
    for c in range(d_out):
        blocks[:, :, c, :, c] = last
    # Δ_{L−1}[μ, c, :] = γ W_L[c, :] ⊙ σ'(z_{L−1}[μ, :]), the same on both sides before σ'
    top = (gamma[:, None, None] * weights[-1])[:, None, :, :]
    deltas = [top, top]
    for layer in range(depth - 2, -1, -1):
        sides = []
        for passes, delta in zip((first, second), deltas, strict=True):
            slope = passes.slopes[layer]
            scaled = delta if slope is None else delta * slope[:, :, None, :]
            sides.append(np.broadcast_to(scaled, (cells, passes.samples, d_out, delta.shape[-1])))
        left = sides[0].reshape(cells, rows * d_out, -1)
        right = sides[1].reshape(cells, columns * d_out, -1)
        outer = (left @ right.transpose(0, 2, 1)).reshape(cells, rows, d_out, columns, d_out)
        blocks += (
            etas[layer][:, None, None, None, None] * outer * gram(layer)[..., :, None, :, None]
        )
        deltas = [side @ weights[layer][:, None, :, :] for side in sides] if layer > 0 else deltas
    return blocks.reshape(cells, rows * d_out, columns * d_out)


def spectral_norm(matrices: np.ndarray) -> np.ndarray:
    """Largest singular value of each matrix of a stack ``(..., a, b)``.

    Through the top eigenvalue of the Gram matrix of the shorter side: its absolute error is
    ε‖M‖₂², a relative error ε in ‖M‖₂, and the eigenvalue problem is only min(a, b) wide.
    """
    rows, cols = matrices.shape[-2:]
    transposed = np.swapaxes(matrices, -1, -2)
    gram = matrices @ transposed if rows <= cols else transposed @ matrices
    if gram.shape[-1] == 1:
        top = gram[..., 0, 0]
    else:
        top = np.linalg.eigvalsh(gram)[..., -1]
    return np.sqrt(np.maximum(top, 0.0))
