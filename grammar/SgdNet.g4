// Whole grammar of the .sgdnet language (docs/language.md §2–§6); see docs/grammar.md for the choices.
grammar SgdNet;

@lexer::members {
/// True for characters that may continue an identifier.
static bool isIdentChar(size_t c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/// A unit must not run into an identifier character: `4 /speed` is `4`, `/`, `speed`;
/// `2 bound` is `2`, `bound`; `2 MB/step` is `2 MB`, `/`, `step`. QUANTITY is matched greedily;
/// when an identifier character follows it, it is cut back to `NUMBER UNIT` before a `/`, or
/// else to its NUMBER, and lexing resumes after the cut. (Done here, not with a lexer predicate:
/// with predicates the 4.9 C++ runtime leaks a DFA state at each failed match.)
std::unique_ptr<antlr4::Token> nextToken() override {
    std::unique_ptr<antlr4::Token> t = antlr4::Lexer::nextToken();
    if (t->getType() != QUANTITY || !isIdentChar(_input->LA(1))) return t;
    const std::string text = t->getText();  // ASCII: digits, '.', 'e', '+', '-', blanks, unit
    size_t keep = 0;
    size_t type = NUMBER;
    const size_t slash = text.rfind('/');
    const size_t unit = text.find_first_not_of("0123456789.eE+- \t");
    if (slash != std::string::npos && unit != std::string::npos && slash > unit) {
        keep = slash;  // `2 MB/step`: keep `2 MB`
        type = QUANTITY;
    } else {
        keep = text.find_first_of(" \t/");
        if (keep == std::string::npos || (unit != std::string::npos && unit < keep)) keep = unit;
    }
    const size_t start = t->getStartIndex();
    _input->seek(start + keep);
    setLine(t->getLine());
    setCharPositionInLine(t->getCharPositionInLine() + keep);
    return _factory->create({this, _input}, type, text.substr(0, keep), antlr4::Token::DEFAULT_CHANNEL,
                            start, start + keep - 1, t->getLine(), t->getCharPositionInLine());
}
}

// ───────────────────────────── declarations ─────────────────────────────

file        : decl* EOF ;
exprOnly    : expr EOF ;

decl
    : modelDecl
    | paramDecl
    | layersDecl
    | hostDecl
    | nodeDecl
    | trainingDecl
    | netDecl
    | measureDecl
    ;

modelDecl   : 'model' name ';' ;
paramDecl   : kind=('param' | 'let') name '=' expr ';' ;
measureDecl : 'measure' name '=' expr ';' ;

layersDecl
    : 'layers' name '{' layerRow* '}' ';'?      # layerTable
    | 'layers' name '=' expr ';'                # layerProfile
    ;
// A missing ',' between columns is accepted here and reported by the AST builder (one clear error).
layerRow    : layerName ':' assignment (','? assignment)* ','? ';' ;
layerName   : name | STRING ;

hostDecl    : 'host' name ('[' expr ']')? '{' propertyStmt* '}' ';'? ;
nodeDecl    : kind=('worker' | 'server') name ('[' expr ']')? '{' propertyStmt* '}' ';'? ;
trainingDecl: 'training' '{' propertyStmt* '}' ';'? ;
propertyStmt: assignment ';' ;
assignment  : name '=' expr ;

netDecl     : 'net' name '{' netItem* '}' ';'? ;
netItem     : paramDecl | placeDecl | transitionDecl ;
placeDecl   : 'place' name arraySpec? ('=' init=expr)? ('bound' '='? bound=expr)? ';' ;
arraySpec
    : '[' name 'in' first=expr '..' last=expr ']'   # rangeArray
    | '[' expr ']'                              # sizeArray
    ;
transitionDecl
    : 'transition' name arraySpec? '~' expr attribute* arcBlock     # timedTransition
    | 'immediate' name arraySpec? attribute* arcBlock               # immediateTransition
    ;
attribute   : name '='? expr ;
arcBlock    : '{' arc* '}' ';'? ;
// `in a, b*2;`: one arc per listed place; an empty element (`in a, ;`) is reported by the AST
// builder, which expands the list into one ArcDecl per place.
arc         : kind=('in' | 'out' | 'inhibit') arcPlace (',' arcPlace?)* ';' ;
arcPlace    : nameRef ('*' primary)? ;

// ───────────────────────────── expressions ─────────────────────────────
// Earlier alternatives bind tighter: `^` (right-assoc) above unary minus, then C precedence.

expr
    : primary                                           # atomExpr
    | <assoc=right> expr '^' expr                       # powExpr
    | op=('-' | '!') expr                               # unaryExpr
    | expr op=('*' | '/' | '%') expr                    # mulExpr
    | expr op=('+' | '-') expr                          # addExpr
    | expr op=('<' | '<=' | '>' | '>=') expr            # relExpr
    | expr op=('==' | '!=') expr                        # eqExpr
    | expr '&&' expr                                    # andExpr
    | expr '||' expr                                    # orExpr
    | <assoc=right> expr '?' expr ':' expr              # condExpr
    ;

primary
    : (NUMBER | QUANTITY | BAD_QUANTITY)                # numberLit
    | (STRING | UNTERMINATED_STRING)                    # stringLit
    | ('true' | 'false')                                # boolLit
    | name '(' (arg (',' arg)* ','?)? ')'               # callExpr
    | nameRef                                           # nameExpr
    | '[' (expr (',' expr)* ','?)? ']'                  # listLit
    | '(' expr ')'                                      # parenExpr
    ;
// `mean = 1 ms`, `0.3: det(1 ms)` (weight: value) or `x`; LL(2), so no long look-ahead.
arg
    : name '=' expr                                     # namedArg
    | expr (':' expr)?                                  # exprArg
    ;
// `N`, `mm1.queue`, `shared.buf[2]`, and generated names indexed in the middle: `w[3].ready`.
// `[*]` (every element of an array) is allowed by the grammar anywhere and accepted by the
// compiler only inside `sum(…)`/`mean(…)` of a measure: `sum(throughput(w[*].compute))`.
nameRef     : name ('[' (expr | '*') ']')? ('.' name ('[' (expr | '*') ']')?)* ;

// Keywords are reserved only where a declaration or an arc starts; elsewhere they are names
// (`layers = vgg;`, `server = infinite`, `host = h[0]`, `compute = net.compute`). `true`/`false`
// are reserved.
name
    : ID
    | 'model' | 'param' | 'let' | 'layers' | 'host' | 'worker' | 'server' | 'training' | 'net'
    | 'place' | 'transition' | 'immediate' | 'measure' | 'in' | 'out' | 'inhibit' | 'bound'
    ;

// ───────────────────────────── lexer ─────────────────────────────

MODEL       : 'model' ;
PARAM       : 'param' ;
LET         : 'let' ;
LAYERS      : 'layers' ;
HOST        : 'host' ;
WORKER      : 'worker' ;
SERVER      : 'server' ;
TRAINING    : 'training' ;
NET         : 'net' ;
PLACE       : 'place' ;
TRANSITION  : 'transition' ;
IMMEDIATE   : 'immediate' ;
MEASURE     : 'measure' ;
IN          : 'in' ;
OUT         : 'out' ;
INHIBIT     : 'inhibit' ;
BOUND       : 'bound' ;
TRUE        : 'true' ;
FALSE       : 'false' ;

// A number with a unit is one token, spaces or tabs allowed in between (`25MB`, `1.5 ms`,
// `2 /s`, `10 MB/s`); the unit must not run into an identifier character.
QUANTITY    : NUM [ \t]* UNIT ;   // cut back in nextToken() when a name character follows
NUMBER      : NUM ;
// A number glued to letters that are not a unit (`25XB`): reported by the AST builder.
BAD_QUANTITY: NUM [A-Za-z_] [A-Za-z0-9_]* ;

ID          : [A-Za-z_] [A-Za-z0-9_]* ;
STRING      : '"' ( '\\' ~[\r\n] | ~["\\\r\n] )* '"' ;
UNTERMINATED_STRING : '"' ( '\\' ~[\r\n] | ~["\\\r\n] )* '\\'? ;

DOTDOT      : '..' ;
DOT         : '.' ;
COMMA       : ',' ;
SEMI        : ';' ;
COLON       : ':' ;
LPAREN      : '(' ;
RPAREN      : ')' ;
LBRACK      : '[' ;
RBRACK      : ']' ;
LBRACE      : '{' ;
RBRACE      : '}' ;
TILDE       : '~' ;
QUESTION    : '?' ;
EQ          : '==' ;
NE          : '!=' ;
LE          : '<=' ;
GE          : '>=' ;
LT          : '<' ;
GT          : '>' ;
ANDAND      : '&&' ;
OROR        : '||' ;
NOT         : '!' ;
ASSIGN      : '=' ;
PLUS        : '+' ;
MINUS       : '-' ;
STAR        : '*' ;
SLASH       : '/' ;
PERCENT     : '%' ;
CARET       : '^' ;

WS          : [ \t\r\n\f]+ -> channel(HIDDEN) ;
LINE_COMMENT: '//' ~[\r\n]* -> channel(HIDDEN) ;
BLOCK_COMMENT: '/*' .*? '*/' -> channel(HIDDEN) ;
// Reported by the front end; kept off the parser's channel.
UNTERMINATED_COMMENT: '/*' ( ~'*' | '*'+ ~[*/] )* '*'* -> channel(HIDDEN) ;
ERROR_CHAR  : . -> channel(HIDDEN) ;

fragment NUM    : [0-9]+ ('.' [0-9]+)? ([eE] [+-]? [0-9]+)? ;
fragment UNIT
    : 'ns' | 'us' | 'ms' | 's' | 'min' | 'h'
    | 'B' | 'KB' | 'MB' | 'GB' | 'TB' | 'KiB' | 'MiB' | 'GiB' | 'TiB'
    | 'b' | 'Kb' | 'Mb' | 'Gb' | 'Tb'
    | 'bps' | 'Kbps' | 'Mbps' | 'Gbps' | 'Tbps'
    | 'B/s' | 'KB/s' | 'MB/s' | 'GB/s' | 'TB/s' | 'KiB/s' | 'MiB/s' | 'GiB/s' | 'TiB/s'
    | 'Hz' | '/s'
    ;
