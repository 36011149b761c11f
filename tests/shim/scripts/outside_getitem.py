import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader


class Clean(Dataset):
    def __len__(self):
        return 12

    def __getitem__(self, idx):
        return torch.full((4,), float(idx)), idx % 3


def shift_collate(batch):
    xs = torch.stack([b[0] for b in batch])
    ys = torch.tensor([b[1] for b in batch]) + 1
    return xs, ys


model = nn.Linear(4, 3).cuda()
for x, y in DataLoader(Clean(), batch_size=4, collate_fn=shift_collate):
    loss = nn.functional.cross_entropy(model(x.cuda()), y.cuda())
print('trained')
