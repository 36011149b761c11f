import torch
import cudasleuth_shim
cudasleuth_shim.install()
cudasleuth_shim.install()
idx = torch.tensor([0, 3])
torch.zeros(3).index_select(0, idx)
print('trained')
