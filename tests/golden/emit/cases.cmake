# Golden cases of the canonical net text (`sgdnet compile --emit net`), one per construct.
list(APPEND SGDNET_GOLDEN_CASES
    emit/arcs
    emit/arrays
    emit/distributions
    emit/immediates
    emit/measures
    emit/servers
)
