import torch
import torch.nn as nn

dev = torch.device('cuda:0')
emb = nn.Embedding(10, 4).cuda()
tokens = torch.tensor([[1, 2, 3], [4, 10, 9]], device=dev)
out = emb(tokens)
print('trained')
