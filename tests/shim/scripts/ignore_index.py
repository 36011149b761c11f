import torch
import torch.nn as nn

logits = torch.randn(6, 3, device='cuda')
labels = torch.tensor([0, 2, -100, 1, -100, 2], device='cuda')
loss = nn.CrossEntropyLoss()(logits, labels)
loss2 = nn.CrossEntropyLoss(ignore_index=7)(logits, torch.tensor([0, 7, 1, 2, 7, 0]).cuda())
print('trained')
