# Golden cases of raw-net lowering: each .sgdnet is compiled and its canonical net text diffed.
list(APPEND SGDNET_GOLDEN_CASES
    lower/arrays
    lower/distributions
    lower/generated_names
    lower/inhibitor
    lower/measures
    lower/memory
    lower/mm1
    lower/multiplicities
    lower/net_param_measure
    lower/net_param_set
    lower/net_param_unqualified
    lower/params_set
    lower/priorities_weights
    lower/prob_places
    lower/servers
    lower/speed
    lower/test_arc
    lower/two_nets
)
