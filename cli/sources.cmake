# SGDNET_CLI_SOURCES: the `sgdnet` executable, one file per subcommand.
set(SGDNET_CLI_SOURCES
    main.cpp
    common.cpp
    output.cpp
    cmd_check.cpp
    cmd_compile.cpp
    cmd_run.cpp
    cmd_import_profile.cpp
    cmd_sweep.cpp
    sweep_spec.cpp
)
