"""A small transformer language model, written as a workload function: tiny_transformer:build(batch)."""
# FUNCTION(batch) returns (model, inputs, targets, loss_fn); inputs are integer token ids, so the
# model starts with an embedding (a sparse-looking but dense gradient in PyTorch's default).
import torch
import torch.nn as nn

VOCAB, D_MODEL, HEADS, FF, LAYERS, SEQ = 2000, 128, 4, 512, 4, 32


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D_MODEL)
        self.pos = nn.Embedding(SEQ, D_MODEL)
        self.blocks = nn.ModuleList(
            nn.TransformerEncoderLayer(D_MODEL, HEADS, FF, dropout=0.0, batch_first=True)
            for _ in range(LAYERS))
        self.norm = nn.LayerNorm(D_MODEL)
        self.head = nn.Linear(D_MODEL, VOCAB)

    def forward(self, tokens):
        positions = torch.arange(tokens.shape[1], device=tokens.device)
        h = self.embed(tokens) + self.pos(positions)
        for block in self.blocks:
            h = block(h)
        return self.head(self.norm(h)).reshape(-1, VOCAB)


def build(batch):
    torch.manual_seed(0)
    tokens = torch.randint(0, VOCAB, (batch, SEQ))
    targets = torch.randint(0, VOCAB, (batch * SEQ,))
    return TinyLM(), tokens, targets, nn.CrossEntropyLoss()
