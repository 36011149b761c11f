"""A sentinel written into a mask the loss does not ignore, or read with the masks from a file
a data script wrote, and an embedding sized by the largest id (a count read back under its key
from a dict literal)."""
import os
import sys

import numpy as np

import torch

VOID = 9


def masks(n):
    m = torch.arange(n * 4).reshape(n, 4) % 3
    m[m == 2] = VOID
    return m


def load_masks(root, split):
    return np.load(os.path.join(root, split + "_mask.npy"))


def stats_of(ids):
    stats = {
        "n_rows": len(ids),
        "num_items": int(ids.max()),
    }
    return stats


if sys.argv[1] == "mask":
    target = masks(4)
    logits = torch.randn(4, 3, 4)
    loss = torch.nn.functional.cross_entropy(logits, target)
elif sys.argv[1] == "file":
    target = torch.from_numpy(load_masks(".", "train"))
    logits = torch.randn(4, 3, 4)
    loss = torch.nn.functional.cross_entropy(logits, target)
else:
    ids = torch.arange(10)
    stats = stats_of(ids)
    emb = torch.nn.Embedding(stats["num_items"], 2)
    out = emb(ids)
print("trained")
