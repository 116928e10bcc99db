"""A small vision transformer on 32×32 images, written as a workload function: vit_tiny:build(batch)."""
# FUNCTION(batch) returns (model, inputs, targets, loss_fn). 8×8 patches (16 tokens and a class
# token), width 128, 4 encoder layers of 4 heads; torch's own TransformerEncoderLayer, so many
# parameter tensors of every size (layer norms, attention and MLP weights and biases).
import torch
import torch.nn as nn

CLASSES, SIDE, PATCH, WIDTH, DEPTH, HEADS = 10, 32, 8, 128, 4, 4


class ViT(nn.Module):
    def __init__(self):
        super().__init__()
        tokens = (SIDE // PATCH) ** 2
        self.patches = nn.Conv2d(3, WIDTH, kernel_size=PATCH, stride=PATCH)
        self.cls = nn.Parameter(torch.zeros(1, 1, WIDTH))
        self.position = nn.Parameter(torch.randn(1, tokens + 1, WIDTH) * 0.02)
        layer = nn.TransformerEncoderLayer(WIDTH, HEADS, dim_feedforward=4 * WIDTH,
                                           dropout=0.0, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, DEPTH)
        self.norm = nn.LayerNorm(WIDTH)
        self.head = nn.Linear(WIDTH, CLASSES)

    def forward(self, images):
        x = self.patches(images).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.position
        return self.head(self.norm(self.encoder(x)[:, 0]))


def build(batch):
    torch.manual_seed(0)
    images = torch.randn(batch, 3, SIDE, SIDE)
    labels = torch.randint(0, CLASSES, (batch,))
    return ViT(), images, labels, nn.CrossEntropyLoss()
