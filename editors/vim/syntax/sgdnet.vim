""" Vim syntax highlighting for .sgdnet models: keywords, units, functions, strings, comments.
" Also properties and their keyword values, numbers and `[*]`.
" Install: copy editors/vim/syntax and editors/vim/ftdetect into ~/.vim/ (or add editors/vim to
" 'runtimepath').
if exists('b:current_syntax')
  finish
endif

let s:cpo_save = &cpo
set cpo&vim

syntax case match

" Declarations, net items and arcs (keywords only where a declaration or an arc starts; they
" are highlighted everywhere, which is what a reader expects).
syntax keyword sgdnetDeclaration model param let layers host worker server training net measure
syntax keyword sgdnetNetItem     place transition immediate
syntax keyword sgdnetArc         in out inhibit bound
syntax keyword sgdnetBoolean     true false

" Properties of hosts, workers, servers, the training block, layer rows and transitions.
syntax keyword sgdnetProperty compute update bandwidth latency batch cores interference oversubscription speed
syntax keyword sgdnetProperty sync granularity model_bytes bucket first_bucket fusion sharing
syntax keyword sgdnetProperty share_ratio overlap buffers backward_overhead protocol
syntax keyword sgdnetProperty message_overhead comm_cpu fwd bwd bytes order memory priority weight

" Values of keyword-valued properties.
syntax keyword sgdnetConstant ps_sync ps_async allreduce_ring allreduce_tree gossip
syntax keyword sgdnetConstant fine coarse fair fifo eager rendezvous single infinite enabling age

" Distributions, functions and measure operators.
syntax keyword sgdnetDistribution det exp uniform normal lognormal gamma erlang weibull empirical mixture
syntax keyword sgdnetFunction min max abs floor ceil round sqrt log pow profile ps_ssp
syntax keyword sgdnetMeasure  tokens throughput prob sum mean

" Numbers, with a unit when one follows (`1.5 ms`, `25MB`, `10 Gbps`, `2 /s`, `10 MB/s`).
syntax match sgdnetNumber   "\<\d\+\%(\.\d\+\)\=\%([eE][+-]\=\d\+\)\=\>"
syntax match sgdnetQuantity "\<\d\+\%(\.\d\+\)\=\%([eE][+-]\=\d\+\)\=[ \t]*\%(ns\|us\|ms\|s\|min\|h\|B\|KB\|MB\|GB\|TB\|KiB\|MiB\|GiB\|TiB\|b\|Kb\|Mb\|Gb\|Tb\|bps\|Kbps\|Mbps\|Gbps\|Tbps\|Hz\)\>\%(\/s\>\)\="
syntax match sgdnetQuantity "\<\d\+\%(\.\d\+\)\=\%([eE][+-]\=\d\+\)\=[ \t]*\/s\>"
" Units the lexer knows (also listed here so that every one is named in this file):
" ns us ms s min h B KB MB GB TB KiB MiB GiB TiB b Kb Mb Gb Tb bps Kbps Mbps Gbps Tbps
" B/s KB/s MB/s GB/s TB/s KiB/s MiB/s GiB/s TiB/s Hz /s

" `[*]`: every element of an array, in sum(…)/mean(…) of a measure.
syntax match sgdnetWildcard "\[\*\]"

syntax region sgdnetString start=+"+ skip=+\\\\\|\\"+ end=+"+ oneline contains=sgdnetEscape
syntax match  sgdnetEscape contained "\\."

syntax keyword sgdnetTodo contained TODO FIXME XXX NOTE
syntax match  sgdnetLineComment "//.*$" contains=sgdnetTodo,@Spell
syntax region sgdnetBlockComment start="/\*" end="\*/" contains=sgdnetTodo,@Spell

highlight default link sgdnetDeclaration  Statement
highlight default link sgdnetNetItem      Statement
highlight default link sgdnetArc          Keyword
highlight default link sgdnetBoolean      Boolean
highlight default link sgdnetProperty     Identifier
highlight default link sgdnetConstant     Constant
highlight default link sgdnetDistribution Function
highlight default link sgdnetFunction     Function
highlight default link sgdnetMeasure      Function
highlight default link sgdnetNumber       Number
highlight default link sgdnetQuantity     Number
highlight default link sgdnetWildcard     Special
highlight default link sgdnetString       String
highlight default link sgdnetEscape       SpecialChar
highlight default link sgdnetTodo         Todo
highlight default link sgdnetLineComment  Comment
highlight default link sgdnetBlockComment Comment

let b:current_syntax = 'sgdnet'

let &cpo = s:cpo_save
unlet s:cpo_save
