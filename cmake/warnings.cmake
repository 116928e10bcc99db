# INTERFACE target carrying the project's warning flags; generated code does not link it.
add_library(sgdnet_warnings INTERFACE)
add_library(sgdnet::warnings ALIAS sgdnet_warnings)
target_compile_options(sgdnet_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow=local)
if(SGDNET_WERROR)
    target_compile_options(sgdnet_warnings INTERFACE -Werror)
endif()
