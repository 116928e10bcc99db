# Golden cases of syntax errors (and keywords used as names): rendered diagnostics, see docs/grammar.md.
list(APPEND SGDNET_GOLDEN_CASES
    syntax/bad_arc
    syntax/bad_character
    syntax/bad_declaration
    syntax/bad_escape
    syntax/binary_garbage
    syntax/deep_nesting
    syntax/empty_file
    syntax/invalid_utf8
    syntax/keywords_as_names
    syntax/layer_row
    syntax/long_chain
    syntax/missing_brace
    syntax/missing_expression
    syntax/missing_semicolon
    syntax/missing_semicolon_eof
    syntax/multiple_errors
    syntax/nul_bytes
    syntax/place_and_transition
    syntax/too_many_errors
    syntax/unknown_unit
    syntax/unterminated_comment
    syntax/unterminated_string
    syntax/utf8_columns
)
