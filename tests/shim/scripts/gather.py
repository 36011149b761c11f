import torch

scores = torch.randn(4, 5).to('cuda')
idx = torch.tensor([[0], [4], [5], [1]]).cuda()
picked = scores.gather(1, idx)
print('trained')
