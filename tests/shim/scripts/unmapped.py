import torch

x = torch.zeros(3).cuda()
s = torch.cuda.Stream()
with torch.cuda.stream(s):
    y = x + 1
print('trained')
