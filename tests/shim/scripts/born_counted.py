"""A head sized by the number of length bins that occur (`len(freq)`), where the bins have a
gap (no fish between 24 and 36 cm): the largest bin is past the count of bins."""
import numpy as np
import torch

rng = np.random.default_rng(0)
lengths = np.concatenate([rng.uniform(11, 22, 60), rng.uniform(37, 61, 60)])


def bins_of(cm):
    return np.floor((cm - 10.0) / 2.0).astype(np.int64)


def frequency(bins):
    freq = {}
    for b in bins.tolist():
        freq[b] = freq.get(b, 0) + 1
    return freq


y = bins_of(lengths)
freq = frequency(y)
n_bins = len(freq)
head = torch.nn.Linear(3, n_bins)
x = torch.randn(len(y), 3)
for s in range(0, len(y), 20):
    loss = torch.nn.functional.cross_entropy(head(x[s:s + 20]), torch.from_numpy(y[s:s + 20]))
print("trained")
