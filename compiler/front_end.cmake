# Front end sources: diagnostics, ANTLR-driven parsing, parse tree → AST builders, AST dump.
set(SGDNET_COMPILER_FRONT_END
    ${CMAKE_CURRENT_LIST_DIR}/diagnostics.cpp
    ${CMAKE_CURRENT_LIST_DIR}/ast_dump.cpp
    ${CMAKE_CURRENT_LIST_DIR}/parse.cpp
    ${CMAKE_CURRENT_LIST_DIR}/parse_errors.cpp
    ${CMAKE_CURRENT_LIST_DIR}/parse_build_expr.cpp
    ${CMAKE_CURRENT_LIST_DIR}/parse_build_decl.cpp
    ${CMAKE_CURRENT_LIST_DIR}/parse_build_net.cpp
)
