import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader

BAD = {5, 17, 42, 99}


class Labels(Dataset):
    def __len__(self):
        return 100

    def __getitem__(self, idx):
        if idx == 63:
            raise KeyError('x')
        y = 3 if idx in BAD else idx % 3
        if idx == 77:
            y = -100
        return torch.randn(4), y


class Tokens(Dataset):
    def __len__(self):
        return 10

    def __getitem__(self, idx):
        ids = torch.tensor([1, 2, idx + 45])
        return {'input_ids': ids, 'labels': torch.tensor(idx % 3)}


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 4)
        self.head = nn.Linear(4, 3)

    def forward(self, x):
        return self.head(x)


model = Net().cuda()
criterion = nn.CrossEntropyLoss()
train = DataLoader(Labels(), batch_size=8, shuffle=True)
tok = DataLoader(Tokens(), batch_size=2)
for x, y in train:
    loss = criterion(model(x.cuda()), y.cuda())
print('trained')
