# Semantic passes and the pipeline: units, evaluation, resolve, check, raw-net lowering, compile().
set(SGDNET_COMPILER_SEMANTICS
    units.cpp
    eval.cpp
    resolve.cpp
    check.cpp
    lower_net.cpp
    pipeline.cpp
    net_statistics.cpp
)
