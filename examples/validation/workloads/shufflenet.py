"""torchvision's ShuffleNet V2 (x0.5) on 64×64 images, written as a workload function: shufflenet:build(batch)."""
# FUNCTION(batch) returns (model, inputs, targets, loss_fn). Many small parameter tensors
# (grouped and depthwise convolutions, batch norms) and little compute per byte of gradient.
import torch
import torch.nn as nn
import torchvision

CLASSES, SIDE = 10, 64


def build(batch):
    torch.manual_seed(0)
    model = torchvision.models.shufflenet_v2_x0_5(num_classes=CLASSES)
    images = torch.randn(batch, 3, SIDE, SIDE)
    labels = torch.randint(0, CLASSES, (batch,))
    return model, images, labels, nn.CrossEntropyLoss()
