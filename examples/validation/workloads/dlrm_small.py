"""A small recommender (embedding bags and MLPs), as a workload function: dlrm_small:build(batch)."""
# FUNCTION(batch) returns (model, inputs, targets, loss_fn). Inputs are integer ids, a bag of
# BAG ids per table per sample; most parameters are embedding rows, whose gradients are dense
# (EmbeddingBag without sparse gradients), so the step is light and the messages large.
import torch
import torch.nn as nn

TABLES, ROWS, DIM, BAG, CLASSES = 4, 8000, 32, 8, 2


class SmallRecommender(nn.Module):
    def __init__(self):
        super().__init__()
        self.tables = nn.ModuleList(nn.EmbeddingBag(ROWS, DIM, mode="mean")
                                    for _ in range(TABLES))
        self.top = nn.Sequential(nn.Linear(TABLES * DIM, 256), nn.ReLU(),
                                 nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, CLASSES))

    def forward(self, ids):
        pooled = [t(ids[:, k]) for k, t in enumerate(self.tables)]
        return self.top(torch.cat(pooled, dim=1))


def build(batch):
    torch.manual_seed(0)
    ids = torch.randint(0, ROWS, (batch, TABLES, BAG))
    targets = torch.randint(0, CLASSES, (batch,))
    return SmallRecommender(), ids, targets, nn.CrossEntropyLoss()
