// Overloaded: a set of lambdas as one visitor for std::visit.
#pragma once

namespace sgdnet::net {

template <class... Fs>
struct Overloaded : Fs... {
    using Fs::operator()...;
};
// Clang 14 does not deduce an aggregate's template arguments by itself.
template <class... Fs>
Overloaded(Fs...) -> Overloaded<Fs...>;

}  // namespace sgdnet::net
