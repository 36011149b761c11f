"""A data step runs before torch is imported; the labels are shifted after. The born-at pass
starts tracing when torch starts importing: the step before is not traced, the shift is."""
from cudasleuth_shim import born


def tally(rows):
    counts = {}
    for r in rows:
        counts[r % 5] = counts.get(r % 5, 0) + 1
    return counts


tally(range(200))
armed_before = born._B is not None and born._B.armed

import torch  # noqa: E402

print("armed", armed_before, born._B is not None and born._B.armed)


def shifted(ys):
    return [y + 1 for y in ys]


labels = torch.tensor(shifted([0, 1, 2, 3]))
head = torch.nn.Linear(2, 4)
loss = torch.nn.functional.cross_entropy(head(torch.randn(4, 2)), labels)
print("trained")
