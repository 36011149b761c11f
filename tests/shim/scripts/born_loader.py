"""Labels already out of range when read: a loader function called from the Dataset's __init__
parses them from text rows (class 4 of a 4-class head)."""
import torch
from torch.utils.data import DataLoader, Dataset

ROWS = ["%d,%f" % (4 if i == 21 else i % 4, i / 10.0) for i in range(40)]
N_CLASSES = 4


def load_rows(lines):
    out = []
    for text in lines:
        cls, feat = text.split(",")
        label = int(cls)
        out.append((float(feat), label))
    return out


class Rows(Dataset):
    def __init__(self, lines):
        rows = load_rows(lines)
        self.x = [r[0] for r in rows]
        self.y = [r[1] for r in rows]

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return torch.tensor([self.x[i]]), torch.tensor(self.y[i])


head = torch.nn.Linear(1, N_CLASSES)
for x, y in DataLoader(Rows(ROWS), batch_size=8, shuffle=True, num_workers=2):
    loss = torch.nn.functional.cross_entropy(head(x), y)
print("trained")
