# sgdnet_add_library: one folder's static library, alias and include root, the same way everywhere.

# sgdnet_add_library(NAME SOURCES s1… [PUBLIC lib…] [PRIVATE lib…])
# Target sgdnet_NAME with alias sgdnet::NAME; headers are included from the project root as
# "folder/file.hpp"; the project's warnings apply to its sources only.
function(sgdnet_add_library name)
    cmake_parse_arguments(ARG "" "" "SOURCES;PUBLIC;PRIVATE" ${ARGN})
    add_library(sgdnet_${name} STATIC ${ARG_SOURCES})
    add_library(sgdnet::${name} ALIAS sgdnet_${name})
    target_include_directories(sgdnet_${name} PUBLIC ${PROJECT_SOURCE_DIR})
    target_link_libraries(sgdnet_${name} PUBLIC ${ARG_PUBLIC} PRIVATE ${ARG_PRIVATE} sgdnet::warnings)
endfunction()
