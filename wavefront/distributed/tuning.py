"""The choices of the distributed searches that a measurement decides, as one frozen object.

Passed explicitly (``bfs(graph, root, tuning=...)``); never a module global.
The defaults are the winners recorded in ``docs/decisions/distributed.md``.
"""
from __future__ import annotations

from dataclasses import dataclass

FOLD_DEDUPE = ("auto", "always", "never")


@dataclass(frozen=True)
class DistributedTuning:
    """How the BFS fold (the (target, parent) exchange of seed 000 fig. 8) is done.

    * ``fold_dedupe``: pick one sender per discovered target before the
      all-to-all (fig. 8 steps 6-8): each rank of a grid row learns, by an
      exclusive OR-scan of the row's found bitmaps, which targets a rank
      before it found, and sends only the others. It costs a row-block
      bitmap (``n / (8 R)`` bytes) per rank, so ``"auto"`` runs it on levels
      whose frontier holds enough edges for the duplicate pairs to cost more:
      ``m_f * pair_bytes >= dedupe_ratio * P * n / (8 R)``. ``"always"`` and
      ``"never"`` force it (the same choice on every rank: it is collective).
    * ``pack_pairs``: a pair travels as one int64 ``parent << b | target``
      (``b`` bits for a vertex of an owner's piece) where ``b`` plus the bits
      of a vertex id fit in 63, else as two int64.
    """

    fold_dedupe: str = "auto"
    dedupe_ratio: float = 1.0
    pack_pairs: bool = True

    def __post_init__(self):
        if self.fold_dedupe not in FOLD_DEDUPE:
            raise ValueError(f"fold_dedupe must be one of {', '.join(FOLD_DEDUPE)}, got {self.fold_dedupe!r}")
        if not self.dedupe_ratio > 0:
            raise ValueError(f"dedupe_ratio must be positive, got {self.dedupe_ratio!r}")


DEFAULT_TUNING = DistributedTuning()
