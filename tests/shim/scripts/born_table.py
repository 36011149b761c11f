"""An embedding sized by the number of rows of an element table, indexed by atomic number
(1..30): the table's own entries hold the number 30 that its row count is."""
import torch

SYMBOLS = ["H", "He", "Li", "Be", "B", "C", "N", "O", "F", "Ne", "Na", "Mg", "Al", "Si", "P",
           "S", "Cl", "Ar", "K", "Ca", "Sc", "Ti", "V", "Cr", "Mn", "Fe", "Co", "Ni", "Cu", "Zn"]


def load_table():
    table = {}
    for z, sym in enumerate(SYMBOLS, start=1):
        table[sym] = {"z": z, "group": (z - 1) % 18 + 1}
    return table


table = load_table()
n_species = len(table)
embed = torch.nn.Embedding(n_species, 8)
crystals = [[SYMBOLS[(k * 7 + j) % 30] for j in range(4)] for k in range(20)]
for atoms in crystals:
    ids = torch.tensor([table[s]["z"] for s in atoms])
    h = embed(ids).sum()
print("trained")
