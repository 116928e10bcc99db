# Training-system lowering (LANGUAGE.md §5): AST → TrainingSpec → net.
set(SGDNET_COMPILER_TRAINING
    lower_training_builder.cpp
    lower_training_spec.cpp
    lower_training.cpp
)
