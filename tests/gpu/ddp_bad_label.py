"""Two ranks under torchrun; rank 1's shard holds a label equal to the class count, so its
loss asserts on the GPU while rank 0 waits in the gradient all-reduce."""
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class Shard(Dataset):
    def __init__(self, n=256, classes=5):
        g = torch.Generator().manual_seed(0)
        self.x = torch.randn(n, 16, generator=g)
        self.y = torch.randint(0, classes, (n,), generator=g)
        self.y[201] = classes  # one bad label

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def main():
    backend = os.environ.get("BACKEND", "gloo")
    dist.init_process_group(backend)
    rank = dist.get_rank()
    dev = torch.device("cuda", int(os.environ.get("LOCAL_RANK", 0)) % torch.cuda.device_count())
    torch.cuda.set_device(dev)
    ds = Shard()
    loader = DataLoader(ds, batch_size=32, sampler=DistributedSampler(ds, shuffle=False))
    model = DDP(nn.Linear(16, 5).to(dev), device_ids=[dev.index])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss()
    for epoch in range(3):
        for x, y in loader:
            x, y = x.to(dev), y.to(dev)
            loss = crit(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
    if rank == 0:
        print("trained")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
