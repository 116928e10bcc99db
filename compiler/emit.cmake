# SGDNET_COMPILER_EMIT: exporters of the net IR (Graphviz DOT, PNML, JSON).
set(SGDNET_COMPILER_EMIT
    emit_dot.cpp
    emit_pnml.cpp
    emit_json.cpp
)
# The PNML <toolspecific> section records the tool version.
set_source_files_properties(emit_pnml.cpp PROPERTIES
    COMPILE_DEFINITIONS "SGDNET_VERSION=\"${PROJECT_VERSION}\"")
