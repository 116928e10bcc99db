// Unit tests of the front end: every construct of docs/language.md §2–§6 parsed into the AST (shape,
// ranges, units, precedence), dump(), and syntax errors with their messages and positions.
#include <memory>
#include <string>
#include <variant>

#include <doctest/doctest.h>

#include "frontend/ast.hpp"
#include "frontend/diagnostics.hpp"
#include "frontend/parse.hpp"

using namespace sgdnet::frontend;

namespace {

struct Parsed {
    Diagnostics diags;
    Ast ast;
};

std::unique_ptr<Parsed> parse_text(const std::string& text) {
    auto p = std::make_unique<Parsed>();
    const uint32_t f = p->diags.add_source("t.sgdnet", text);
    p->ast = parse(f, p->diags);
    return p;
}

/// Parses `text` as one expression; fails the test on a diagnostic.
ExprPtr expr(const std::string& text) {
    Diagnostics d;
    ExprPtr e = parse_expression(d.add_source("e", text), d);
    INFO(text, "\n", d.render());
    CHECK_FALSE(d.has_errors());
    REQUIRE(e != nullptr);
    return e;
}

/// Fully parenthesized form of an expression, to check precedence and associativity.
std::string shape(const Expr& e) {
    return std::visit(
        [](const auto& n) -> std::string {
            using T = std::decay_t<decltype(n)>;
            if constexpr (std::is_same_v<T, NumberLit>) {
                std::string s = std::to_string(n.value);
                s.erase(s.find_last_not_of('0') + 1);
                if (s.back() == '.') s.pop_back();
                return n.unit.empty() ? s : s + "[" + n.unit + "]";
            } else if constexpr (std::is_same_v<T, StringLit>) {
                return "\"" + n.value + "\"";
            } else if constexpr (std::is_same_v<T, BoolLit>) {
                return n.value ? "true" : "false";
            } else if constexpr (std::is_same_v<T, NameRef>) {
                std::string s;
                for (std::size_t k = 0; k < n.parts.size(); ++k) {
                    s += (k == 0 ? "" : ".") + n.parts[k];
                    if (k < n.part_indexes.size() && n.part_indexes[k])
                        s += "[" + shape(*n.part_indexes[k]) + "]";
                }
                return n.index ? s + "[" + shape(*n.index) + "]" : s;
            } else if constexpr (std::is_same_v<T, Unary>) {
                return std::string("(") + (n.op == Unary::Op::Neg ? "-" : "!") + shape(*n.operand) +
                       ")";
            } else if constexpr (std::is_same_v<T, Binary>) {
                static const char* ops[] = {"+",  "-",  "*", "/",  "%", "^",  "==",
                                            "!=", "<", "<=", ">", ">=", "&&", "||"};
                return "(" + shape(*n.lhs) + " " + ops[static_cast<int>(n.op)] + " " +
                       shape(*n.rhs) + ")";
            } else if constexpr (std::is_same_v<T, Conditional>) {
                return "(" + shape(*n.cond) + " ? " + shape(*n.then_expr) + " : " +
                       shape(*n.else_expr) + ")";
            } else if constexpr (std::is_same_v<T, Call>) {
                std::string s = n.callee + "(";
                for (std::size_t k = 0; k < n.args.size(); ++k) {
                    const Arg& a = n.args[k];
                    if (k > 0) s += ", ";
                    if (a.name) s += *a.name + " = ";
                    if (a.weight) s += shape(*a.weight) + ": ";
                    s += shape(*a.value);
                }
                return s + ")";
            } else {
                std::string s = "[";
                for (std::size_t k = 0; k < n.items.size(); ++k) {
                    s += (k > 0 ? ", " : "") + shape(*n.items[k]);
                }
                return s + "]";
            }
        },
        e.node);
}

std::string shape_of(const std::string& text) { return shape(*expr(text)); }

SourceRange range(uint32_t l1, uint32_t c1, uint32_t l2, uint32_t c2) {
    return SourceRange{0, {l1, c1}, {l2, c2}};
}

const char* kSection1 = R"(// ring all-reduce, 8 workers, coarse phases
model ring8;

param N  = 8;                 // override from the command line: --set N=16
param bw = 10 Gbps;

worker w[N] {
  compute   = lognormal(mean = 120 ms, cv = 0.05);   // forward + backward
  update    = det(4 ms);                              // local optimizer step
  bandwidth = bw;                                     // NIC, each direction
  latency   = 20 us;
  batch     = 32;
}

training {
  sync        = allreduce_ring;
  granularity = coarse;
  model_bytes = 44.7 MB;       // gradient size exchanged per step
}
)";

const char* kSection6 = R"(net mm1 {
  place queue = 0;
  place idle  = 1;
  transition arrive ~ exp(rate = 1 /s)         { out queue; }
  transition serve  ~ exp(mean = 800 ms)       { in queue; }
}
net shared {
  param K = 3;                                   // params may be local to a net
  place buf[K] = 1;                              // arrays of places …
  transition move[j in 0..K-1] ~ det(1 ms)       // … and of transitions
      { in buf[j]; out buf[(j + 1) % K]; }
  immediate pick priority 2 weight 0.3 { in a*2; out b; inhibit c*3; }
}
measure thr  = throughput(mm1.serve);    // firings per second
measure qlen = tokens(mm1.queue);        // time-average number of tokens
measure busy = prob(mm1.queue > 0);      // fraction of time the condition holds
)";

}  // namespace

TEST_CASE("parse: the docs/language.md §1 example") {
    auto p = parse_text(kSection1);
    INFO(p->diags.render());
    REQUIRE_FALSE(p->diags.has_errors());
    REQUIRE(p->ast.decls.size() == 5);

    const auto& model = std::get<ModelDecl>(p->ast.decls[0]);
    CHECK(model.name == "ring8");
    CHECK(model.range == range(2, 1, 2, 13));

    const auto& n = std::get<ParamDecl>(p->ast.decls[1]);
    CHECK_FALSE(n.is_let);
    CHECK(n.name == "N");
    CHECK(n.name_range == range(4, 7, 4, 8));
    CHECK(shape(*n.value) == "8");
    CHECK(n.value->range == range(4, 12, 4, 13));
    CHECK(n.range == range(4, 1, 4, 14));

    const auto& bw = std::get<ParamDecl>(p->ast.decls[2]);
    const auto& lit = std::get<NumberLit>(bw.value->node);
    CHECK(lit.value == 10);
    CHECK(lit.unit == "Gbps");
    CHECK(bw.value->range == range(5, 12, 5, 19));

    const auto& w = std::get<NodeDecl>(p->ast.decls[3]);
    CHECK(w.kind == NodeDecl::Kind::Worker);
    CHECK(w.name == "w");
    REQUIRE(w.count != nullptr);
    CHECK(shape(*w.count) == "N");
    CHECK(w.range == range(7, 1, 13, 2));
    REQUIRE(w.properties.size() == 5);
    CHECK(w.properties[0].name == "compute");
    CHECK(w.properties[0].name_range == range(8, 3, 8, 10));
    CHECK(w.properties[0].range == range(8, 3, 8, 51));
    CHECK(shape(*w.properties[0].value) == "lognormal(mean = 120[ms], cv = 0.05)");
    const auto& call = std::get<Call>(w.properties[0].value->node);
    CHECK(call.callee_range == range(8, 15, 8, 24));
    CHECK(call.args[0].range == range(8, 25, 8, 38));
    CHECK(shape(*w.properties[1].value) == "det(4[ms])");
    CHECK(shape(*w.properties[2].value) == "bw");
    CHECK(shape(*w.properties[3].value) == "20[us]");
    CHECK(w.properties[4].name == "batch");

    const auto& t = std::get<TrainingDecl>(p->ast.decls[4]);
    REQUIRE(t.properties.size() == 3);
    CHECK(shape(*t.properties[0].value) == "allreduce_ring");
    CHECK(shape(*t.properties[1].value) == "coarse");
    CHECK(shape(*t.properties[2].value) == "44.7[MB]");
    CHECK(t.range == range(15, 1, 19, 2));
}

TEST_CASE("parse: the docs/language.md §6 example") {
    auto p = parse_text(kSection6);
    INFO(p->diags.render());
    REQUIRE_FALSE(p->diags.has_errors());
    REQUIRE(p->ast.decls.size() == 5);

    const auto& mm1 = std::get<NetDecl>(p->ast.decls[0]);
    CHECK(mm1.name == "mm1");
    REQUIRE(mm1.items.size() == 4);
    const auto& queue = std::get<PlaceDecl>(mm1.items[0]);
    CHECK(queue.name == "queue");
    CHECK(shape(*queue.initial) == "0");
    CHECK(queue.bound == nullptr);
    CHECK_FALSE(queue.array.has_value());
    const auto& arrive = std::get<TransitionDecl>(mm1.items[2]);
    CHECK_FALSE(arrive.immediate);
    CHECK(shape(*arrive.delay) == "exp(rate = 1[/s])");
    REQUIRE(arrive.arcs.size() == 1);
    CHECK(arrive.arcs[0].kind == ArcDecl::Kind::Out);
    CHECK(shape(*arrive.arcs[0].place) == "queue");
    CHECK(arrive.arcs[0].multiplicity == nullptr);
    CHECK(arrive.range == range(4, 3, 4, 62));
    const auto& serve = std::get<TransitionDecl>(mm1.items[3]);
    CHECK(serve.arcs[0].kind == ArcDecl::Kind::In);

    const auto& shared = std::get<NetDecl>(p->ast.decls[1]);
    REQUIRE(shared.items.size() == 4);
    CHECK(std::get<ParamDecl>(shared.items[0]).name == "K");
    const auto& buf = std::get<PlaceDecl>(shared.items[1]);
    REQUIRE(buf.array.has_value());
    CHECK(buf.array->var == "i");
    CHECK(shape(*buf.array->size) == "K");
    CHECK(buf.array->first == nullptr);
    CHECK(buf.array->range == range(9, 12, 9, 15));
    const auto& move = std::get<TransitionDecl>(shared.items[2]);
    REQUIRE(move.array.has_value());
    CHECK(move.array->var == "j");
    CHECK(shape(*move.array->first) == "0");
    CHECK(shape(*move.array->last) == "(K - 1)");
    CHECK(move.array->size == nullptr);
    REQUIRE(move.arcs.size() == 2);
    CHECK(shape(*move.arcs[0].place) == "buf[j]");
    CHECK(shape(*move.arcs[1].place) == "buf[((j + 1) % K)]");
    CHECK(move.range == range(10, 3, 11, 43));
    const auto& pick = std::get<TransitionDecl>(shared.items[3]);
    CHECK(pick.immediate);
    CHECK(pick.delay == nullptr);
    REQUIRE(pick.attributes.size() == 2);
    CHECK(pick.attributes[0].name == "priority");
    CHECK(shape(*pick.attributes[0].value) == "2");
    CHECK(pick.attributes[1].name == "weight");
    CHECK(shape(*pick.attributes[1].value) == "0.3");
    REQUIRE(pick.arcs.size() == 3);
    CHECK(pick.arcs[0].kind == ArcDecl::Kind::In);
    CHECK(shape(*pick.arcs[0].multiplicity) == "2");
    CHECK(pick.arcs[2].kind == ArcDecl::Kind::Inhibit);
    CHECK(shape(*pick.arcs[2].multiplicity) == "3");
    CHECK(pick.arcs[2].range == range(12, 65, 12, 68));  // the element `c*3`

    const auto& thr = std::get<MeasureDecl>(p->ast.decls[2]);
    CHECK(thr.name == "thr");
    CHECK(shape(*thr.value) == "throughput(mm1.serve)");
    CHECK(shape(*std::get<MeasureDecl>(p->ast.decls[4]).value) == "prob((mm1.queue > 0))");
}

TEST_CASE("parse: numbers and units, with or without a space") {
    CHECK(shape_of("25MB") == "25[MB]");
    CHECK(shape_of("25 MB") == "25[MB]");
    CHECK(shape_of("1.5 ms") == "1.5[ms]");
    CHECK(shape_of("1.5\tms") == "1.5[ms]");
    CHECK(shape_of("2 /s") == "2[/s]");
    CHECK(shape_of("2/s") == "2[/s]");
    CHECK(shape_of("10 MB/s") == "10[MB/s]");
    CHECK(shape_of("25Gbps") == "25[Gbps]");
    CHECK(shape_of("3 KiB/s") == "3[KiB/s]");
    CHECK(shape_of("8 b") == "8[b]");
    CHECK(shape_of("5 Hz") == "5[Hz]");
    CHECK(shape_of("2 min") == "2[min]");
    CHECK(shape_of("1e3ms") == "1000[ms]");
    CHECK(std::get<NumberLit>(expr("3e-4")->node).value == doctest::Approx(3e-4));
    CHECK(std::get<NumberLit>(expr("12")->node).unit.empty());
    // Not units: a unit never runs into an identifier character.
    CHECK(shape_of("x / s") == "(x / s)");
    CHECK(shape_of("4 /speed") == "(4 / speed)");
    CHECK(shape_of("4/speed") == "(4 / speed)");
    CHECK(shape_of("2 MB/step") == "(2[MB] / step)");
    CHECK(shape_of("3 KiB/s/n") == "(3[KiB/s] / n)");
    CHECK(shape_of("44.7 MB / 10 Gbps") == "(44.7[MB] / 10[Gbps])");
    CHECK(shape_of("2 * min(a, b)") == "(2 * min(a, b))");
    CHECK(shape_of("3 B*2") == "(3[B] * 2)");
    // The whole token is the literal's range, unit included.
    CHECK(expr("  1.5 ms")->range == SourceRange{0, {1, 3}, {1, 9}});
}

TEST_CASE("parse: operator precedence and associativity") {
    CHECK(shape_of("1 + 2 * 3") == "(1 + (2 * 3))");
    CHECK(shape_of("1 - 2 - 3") == "((1 - 2) - 3)");
    CHECK(shape_of("8 / 4 / 2") == "((8 / 4) / 2)");
    CHECK(shape_of("a % b * c") == "((a % b) * c)");
    CHECK(shape_of("2 ^ 3 ^ 2") == "(2 ^ (3 ^ 2))");
    CHECK(shape_of("-2 ^ 2") == "(-(2 ^ 2))");
    CHECK(shape_of("2 ^ -1") == "(2 ^ (-1))");
    CHECK(shape_of("-a * b") == "((-a) * b)");
    CHECK(shape_of("!a && b") == "((!a) && b)");
    CHECK(shape_of("a || b && c") == "(a || (b && c))");
    CHECK(shape_of("a < b == c >= d") == "((a < b) == (c >= d))");
    CHECK(shape_of("a + 1 <= b * 2") == "((a + 1) <= (b * 2))");
    CHECK(shape_of("a != b || c") == "((a != b) || c)");
    CHECK(shape_of("c ? 1 : d ? 2 : 3") == "(c ? 1 : (d ? 2 : 3))");
    CHECK(shape_of("i == 0 ? 0.5 : 1") == "((i == 0) ? 0.5 : 1)");
    CHECK(shape_of("(1 + 2) * 3") == "((1 + 2) * 3)");
    CHECK(shape_of("a || b ? x + 1 : y") == "((a || b) ? (x + 1) : y)");
}

TEST_CASE("parse: calls, named and mixture arguments, lists, strings, booleans, dotted names") {
    CHECK(shape_of("mixture(0.3: det(1 ms), 0.7: exp(mean = 2 ms))") ==
          "mixture(0.3: det(1[ms]), 0.7: exp(mean = 2[ms]))");
    CHECK(shape_of("empirical([1 ms, 2 ms, 3 ms])") == "empirical([1[ms], 2[ms], 3[ms]])");
    CHECK(shape_of("empirical(\"x.txt\")") == "empirical(\"x.txt\")");
    CHECK(shape_of("uniform(1 ms, 2 ms)") == "uniform(1[ms], 2[ms])");
    CHECK(shape_of("ps_ssp(staleness = 2)") == "ps_ssp(staleness = 2)");
    CHECK(shape_of("f()") == "f()");
    CHECK(shape_of("[]") == "[]");
    CHECK(shape_of("true && false") == "(true && false)");
    CHECK(shape_of("net.compute") == "net.compute");
    CHECK(shape_of("shared.buf[2]") == "shared.buf[2]");
    CHECK(shape_of("w[(j+1) % K]") == "w[((j + 1) % K)]");
    CHECK(shape_of("det(4 ms) * 2 + 1 ms") == "((det(4[ms]) * 2) + 1[ms])");
    const auto s = expr(R"("a\"b\\c\nd")");
    CHECK(std::get<StringLit>(s->node).value == "a\"b\\c\nd");
    const auto call = expr("exp(mean = 1 s)");
    const auto& c = std::get<Call>(call->node);
    CHECK(c.callee == "exp");
    CHECK(c.callee_range == SourceRange{0, {1, 1}, {1, 4}});
    REQUIRE(c.args.size() == 1);
    CHECK(*c.args[0].name == "mean");
    CHECK(c.args[0].weight == nullptr);
    CHECK(c.args[0].range == SourceRange{0, {1, 5}, {1, 15}});
}

TEST_CASE("parse: names indexed in the middle (generated elements)") {
    // w[3].ready: the index belongs to `w`; the last part has none.
    auto e = expr("w[3].ready");
    const auto& n = std::get<NameRef>(e->node);
    REQUIRE(n.parts == std::vector<std::string>{"w", "ready"});
    REQUIRE(n.part_indexes.size() == 1);
    REQUIRE(n.part_indexes[0]);
    CHECK(shape(*n.part_indexes[0]) == "3");
    CHECK_FALSE(n.index);
    CHECK(n.indexed_inside());
    CHECK(shape(*expr("w[i + 1].fwd.layer2")) == "w[(i + 1)].fwd.layer2");
    CHECK(shape(*expr("ring.bucket0.round1.w[2]")) == "ring.bucket0.round1.w[2]");
    CHECK(shape(*expr("a[1].b[2].c[3]")) == "a[1].b[2].c[3]");
    CHECK(shape(*expr("tokens(w[j - 1].ready) > 0")) == "(tokens(w[(j - 1)].ready) > 0)");
    // Without an inner index the AST is as before: no part_indexes.
    auto plain = expr("shared.buf[2]");
    const auto& m = std::get<NameRef>(plain->node);
    CHECK(m.part_indexes.empty());
    CHECK_FALSE(m.indexed_inside());
    REQUIRE(m.index);
    // The dump marks every indexed part.
    auto p = parse_text("measure r = tokens(w[3].ready);");
    CHECK_FALSE(p->diags.has_errors());
    CHECK(dump(p->ast).find("name w[].ready") != std::string::npos);
}

TEST_CASE("parse: layer tables, profiles, servers, keywords used as names") {
    auto p = parse_text(R"(
layers vgg {
  conv1: fwd = det(1 ms), bwd = det(2 ms), bytes = 7 KB;
  "fc.2": fwd = 3 ms, bwd = 4 ms, bytes = 16 MiB;
}
layers net = profile("resnet.json");
server ps[2] { update = det(1 ms); bandwidth = 25Gbps; }
worker solo { compute = net.compute; update = net.update; layers = vgg; speed = i == 0 ? 0.5 : 1; }
let half = N / 2;
training { sync = ps_ssp(staleness = 2); overlap = 0.5; sharing = fifo; bucket = 25 MiB; }
)");
    INFO(p->diags.render());
    REQUIRE_FALSE(p->diags.has_errors());
    REQUIRE(p->ast.decls.size() == 6);
    const auto& vgg = std::get<LayersDecl>(p->ast.decls[0]);
    CHECK(vgg.name == "vgg");
    CHECK(vgg.profile == nullptr);
    REQUIRE(vgg.rows.size() == 2);
    CHECK(vgg.rows[0].name == "conv1");
    CHECK(vgg.rows[0].name_range == range(3, 3, 3, 8));
    REQUIRE(vgg.rows[0].columns.size() == 3);
    CHECK(vgg.rows[0].columns[2].name == "bytes");
    CHECK(shape(*vgg.rows[0].columns[2].value) == "7[KB]");
    CHECK(vgg.rows[1].name == "fc.2");
    CHECK(vgg.rows[0].range == range(3, 3, 3, 57));
    const auto& prof = std::get<LayersDecl>(p->ast.decls[1]);
    CHECK(prof.name == "net");
    CHECK(prof.rows.empty());
    CHECK(shape(*prof.profile) == "profile(\"resnet.json\")");
    const auto& ps = std::get<NodeDecl>(p->ast.decls[2]);
    CHECK(ps.kind == NodeDecl::Kind::Server);
    CHECK(shape(*ps.count) == "2");
    CHECK(shape(*ps.properties[1].value) == "25[Gbps]");
    const auto& solo = std::get<NodeDecl>(p->ast.decls[3]);
    CHECK(solo.count == nullptr);
    REQUIRE(solo.properties.size() == 4);
    CHECK(shape(*solo.properties[0].value) == "net.compute");
    CHECK(solo.properties[2].name == "layers");
    CHECK(shape(*solo.properties[3].value) == "((i == 0) ? 0.5 : 1)");
    CHECK(std::get<ParamDecl>(p->ast.decls[4]).is_let);
    const auto& tr = std::get<TrainingDecl>(p->ast.decls[5]);
    CHECK(shape(*tr.properties[0].value) == "ps_ssp(staleness = 2)");
}

TEST_CASE("parse: host declarations, placements and `host` as a name") {
    auto p = parse_text("host h[2] { cores = 2; }\n"
                        "worker w { host = h[i / 2]; }\n"
                        "host node { cores = 8; bandwidth = 25 Gbps; latency = 5 us; };\n"
                        "param host = 1;\n"
                        "training { comm_cpu = 0.6 ns / 1 B; message_overhead = 150 us; }\n");
    INFO(p->diags.render());
    REQUIRE_FALSE(p->diags.has_errors());
    REQUIRE(p->ast.decls.size() == 5);
    const auto& h = std::get<HostDecl>(p->ast.decls[0]);
    CHECK(h.name == "h");
    CHECK(h.name_range == range(1, 6, 1, 7));
    CHECK(shape(*h.count) == "2");
    REQUIRE(h.properties.size() == 1);
    CHECK(h.properties[0].name == "cores");
    const auto& w = std::get<NodeDecl>(p->ast.decls[1]);
    REQUIRE(w.properties.size() == 1);
    CHECK(w.properties[0].name == "host");
    CHECK(shape(*w.properties[0].value) == "h[(i / 2)]");
    const auto& node = std::get<HostDecl>(p->ast.decls[2]);
    CHECK(node.count == nullptr);
    REQUIRE(node.properties.size() == 3);
    CHECK(shape(*node.properties[1].value) == "25[Gbps]");
    CHECK(shape(*node.properties[2].value) == "5[us]");
    CHECK(std::get<ParamDecl>(p->ast.decls[3]).name == "host");
    const auto& tr = std::get<TrainingDecl>(p->ast.decls[4]);
    CHECK(shape(*tr.properties[0].value) == "(0.6[ns] / 1[B])");
    CHECK(dump(p->ast).rfind("host h @1:1-1:25\n"
                             "  count\n"
                             "    number 2 @1:8-1:9\n"
                             "  property cores @1:13-1:23\n"
                             "    number 2 @1:21-1:22\n"
                             "worker w @2:1-2:30\n"
                             "  property host @2:12-2:28\n"
                             "    name h[] @2:19-2:27\n",
                             0) == 0);
}

TEST_CASE("parse: errors in a host block") {
    auto p = parse_text("host h[2] { cores = ; }\nhost g { cores = 2;\n");
    const std::string out = p->diags.render();
    CHECK(out.find("t.sgdnet:1:21: error: expected an expression") != std::string::npos);
    CHECK(out.find("error: expected '}' at end of file") != std::string::npos);
    CHECK(out.find("t.sgdnet:2:1: note: the host block opened here") != std::string::npos);
    REQUIRE(p->ast.decls.size() == 2);
    CHECK(std::get<HostDecl>(p->ast.decls[0]).properties.empty());  // the broken one left out
}

TEST_CASE("parse: transition and place attributes with and without '='") {
    auto p = parse_text(R"(net n {
  place p[j in 1..4] = 2 bound = 5;
  place q bound 3;
  place in;
  transition t ~ det(1 ms) server = infinite memory = age speed = 1 / tokens(p) { in p*2; out q; }
  transition u[3] ~ exp(rate = 2 /s) server = 2 { in in; }
  immediate v priority = 2 weight = 0.5 { inhibit q*(1+1); out p[0]; };
}
)");
    INFO(p->diags.render());
    REQUIRE_FALSE(p->diags.has_errors());
    const auto& n = std::get<NetDecl>(p->ast.decls.at(0));
    REQUIRE(n.items.size() == 6);
    const auto& pp = std::get<PlaceDecl>(n.items[0]);
    CHECK(pp.array->var == "j");
    CHECK(shape(*pp.array->first) == "1");
    CHECK(shape(*pp.array->last) == "4");
    CHECK(shape(*pp.initial) == "2");
    CHECK(shape(*pp.bound) == "5");
    const auto& q = std::get<PlaceDecl>(n.items[1]);
    CHECK(q.initial == nullptr);
    CHECK(shape(*q.bound) == "3");
    CHECK(std::get<PlaceDecl>(n.items[2]).name == "in");
    const auto& t = std::get<TransitionDecl>(n.items[3]);
    REQUIRE(t.attributes.size() == 3);
    CHECK(t.attributes[0].name == "server");
    CHECK(shape(*t.attributes[0].value) == "infinite");
    CHECK(t.attributes[1].name == "memory");
    CHECK(shape(*t.attributes[1].value) == "age");
    CHECK(shape(*t.attributes[2].value) == "(1 / tokens(p))");
    const auto& u = std::get<TransitionDecl>(n.items[4]);
    CHECK(shape(*u.array->size) == "3");
    CHECK(shape(*u.arcs[0].place) == "in");
    const auto& v = std::get<TransitionDecl>(n.items[5]);
    CHECK(shape(*v.attributes[1].value) == "0.5");
    CHECK(shape(*v.arcs[0].multiplicity) == "(1 + 1)");
}

TEST_CASE("parse: dump() prints one node per line with ranges") {
    auto p = parse_text("param bw = 2 * 10 Gbps;\nnet n { place p[2] = 1; transition t ~ det(1 ms) { in p[0]*2; } }\n");
    REQUIRE_FALSE(p->diags.has_errors());
    CHECK(dump(p->ast) ==
          "param bw @1:1-1:24\n"
          "  binary * @1:12-1:23\n"
          "    number 2 @1:12-1:13\n"
          "    number 10 Gbps @1:16-1:23\n"
          "net n @2:1-2:66\n"
          "  place p @2:9-2:24\n"
          "    array i size @2:16-2:19\n"
          "      number 2 @2:17-2:18\n"
          "    initial\n"
          "      number 1 @2:22-2:23\n"
          "  transition t @2:25-2:64\n"
          "    delay\n"
          "      call det @2:40-2:49\n"
          "        arg @2:44-2:48\n"
          "          number 1 ms @2:44-2:48\n"
          "    arc in @2:55-2:61\n"
          "      name p[] @2:55-2:59\n"
          "        number 0 @2:57-2:58\n"
          "      multiplicity\n"
          "        number 2 @2:60-2:61\n");
}

TEST_CASE("parse: an empty file or one with only comments gives an empty AST and no error") {
    for (const char* text : {"", "   \n\n", "// nothing\n/* at all */\n"}) {
        auto p = parse_text(text);
        CHECK(p->ast.decls.empty());
        CHECK_FALSE(p->diags.has_errors());
    }
}

TEST_CASE("parse: CRLF line ends and a UTF-8 byte-order mark") {
    auto p = parse_text("\xEF\xBB\xBFparam x = 1;\r\nparam y = 2 $;\r\n");
    REQUIRE(p->ast.decls.size() == 2);
    // The BOM is one code point: `param` starts in column 2, like the caret counts it.
    CHECK(std::get<ParamDecl>(p->ast.decls[0]).range == range(1, 2, 1, 14));
    CHECK(p->diags.render() ==
          "t.sgdnet:2:13: error: unexpected character '$'\n"
          "  param y = 2 $;\n"
          "              ^\n");
}

TEST_CASE("parse: parse_expression accepts exactly one expression") {
    CHECK(shape_of("25Gbps") == "25[Gbps]");
    CHECK(shape_of(" 16 ") == "16");
    for (const char* bad : {"", "1 +", "1 2", "x;", "25 XB", "\"abc"}) {
        Diagnostics d;
        CHECK_MESSAGE(parse_expression(d.add_source("--set", bad), d) == nullptr, bad);
        CHECK(d.has_errors());
    }
}

TEST_CASE("parse: syntax errors have readable messages at the right place") {
    auto p = parse_text("param x = 1\nworker w {\n  compute = det(1 ms)\n  batch = 4;\n}\n");
    CHECK(p->diags.render() ==
          "t.sgdnet:1:12: error: expected ';' after parameter\n"
          "  param x = 1\n"
          "             ^\n"
          "t.sgdnet:3:22: error: expected ';' after property\n"
          "    compute = det(1 ms)\n"
          "                       ^\n");
    // Recovery keeps every declaration that could be built.
    REQUIRE(p->ast.decls.size() == 2);
    CHECK(std::get<NodeDecl>(p->ast.decls[1]).properties.size() == 2);
}

TEST_CASE("parse: lexical errors") {
    auto msg = [](const std::string& text) {
        auto p = parse_text(text);
        const auto sorted = p->diags.sorted();
        REQUIRE_FALSE(sorted.empty());
        return sorted[0].message + " @" + std::to_string(sorted[0].range.begin.line) + ":" +
               std::to_string(sorted[0].range.begin.col);
    };
    CHECK(msg("let s = \"abc;\n") == "unterminated string @1:9");
    CHECK(msg("param x = 1;\n/* no end\nparam y = 2;\n") == "unterminated comment @2:1");
    CHECK(msg("param x = 1 $ 2;") == "unexpected character '$' @1:13");
    CHECK(msg(std::string("param x = 1;\x01", 13)) == "unexpected character '\\x01' @1:13");
    CHECK(msg(std::string("param x\0 = 1;", 13)) == "unexpected character '\\x00' @1:8");
    CHECK(msg("param x = 1;\nlet \xff\xfe = 2;") == "invalid UTF-8 byte 0xff @2:5");
    CHECK(msg("param x = 25XB;") == "unknown unit 'XB' (units are listed in docs/language.md §3) @1:13");
    CHECK(msg("param x = 25mb;") == "unknown unit 'mb'; did you mean 'MB'? @1:13");
    CHECK(msg("let s = \"a\\qb\";") == "unknown escape sequence '\\q' in string (use \\\" \\\\ \\n or \\t) @1:11");
    CHECK(msg("param x = (1;") == "expected ')' in expression before ';' @1:13");
}

TEST_CASE("parse: all errors of a file are reported, each once") {
    auto p = parse_text(
        "param a = ;\n"
        "param b = 2\n"
        "net n { place p = 1; transition t ~ det(1 ms) { in ; } }\n"
        "measure m = tokens(n.p;\n"
        "let c = 3 @;\n");
    const auto sorted = p->diags.sorted();
    INFO(p->diags.render());
    REQUIRE(sorted.size() == 5);
    CHECK(sorted[0].message == "expected an expression, found ';'");
    CHECK(sorted[1].message == "expected ';' after parameter");
    CHECK(sorted[2].range.begin.line == 3);
    CHECK(sorted[3].range.begin.line == 4);
    CHECK(sorted[4].message == "unexpected character '@'");
}

TEST_CASE("parse: hostile input gives diagnostics, never a crash") {
    SUBCASE("100 000 nested parentheses") {
        auto p = parse_text("param x = " + std::string(100000, '(') + "1" +
                            std::string(100000, ')') + ";");
        REQUIRE(p->diags.error_count() == 1);
        CHECK(p->diags.sorted()[0].message.starts_with("expression too deeply nested"));
        CHECK(p->diags.sorted()[0].range.begin.col == 10 + 257);
    }
    SUBCASE("a very long operator chain and a long unary chain") {
        std::string chain = "1";
        for (int k = 0; k < 50000; ++k) chain += "+1";
        CHECK(parse_text("param x = " + chain + ";")->diags.has_errors());
        CHECK(parse_text("param x = " + std::string(50000, '-') + "1;")->diags.has_errors());
    }
    SUBCASE("256 levels are still accepted") {
        auto p = parse_text("param x = " + std::string(255, '(') + "1" + std::string(255, ')') +
                            ";");
        CHECK_FALSE(p->diags.has_errors());
        CHECK(p->ast.decls.size() == 1);
    }
    SUBCASE("binary garbage") {
        std::string junk;
        uint32_t x = 12345;
        for (int k = 0; k < 100000; ++k) {
            x = x * 1103515245u + 12345u;  // LCG, fixed seed
            junk += static_cast<char>(x >> 24);
        }
        auto p = parse_text(junk);
        CHECK(p->diags.has_errors());
        CHECK(p->diags.sorted().size() <= 51);
    }
    SUBCASE("a long line and many braces") {
        CHECK(parse_text("param x = 1 " + std::string(1000000, 'x') + ";")->diags.has_errors());
        CHECK(parse_text(std::string(100000, '{'))->diags.has_errors());
        CHECK(parse_text(std::string(100000, '"'))->diags.has_errors());
        CHECK(parse_text(std::string(10000, '*') + "/*")->diags.has_errors());
    }
}

TEST_CASE("parse: an arc statement with a list of places is one arc per place") {
    auto p = parse_text("net n { transition t ~ det(1 ms) { in a, b*2; inhibit c*K, d; } }");
    REQUIRE_MESSAGE(!p->diags.has_errors(), p->diags.render());
    const auto& t = std::get<TransitionDecl>(std::get<NetDecl>(p->ast.decls[0]).items[0]);
    REQUIRE(t.arcs.size() == 4);
    CHECK(t.arcs[0].kind == ArcDecl::Kind::In);
    CHECK(shape(*t.arcs[0].place) == "a");
    CHECK_FALSE(t.arcs[0].multiplicity);
    CHECK(t.arcs[1].kind == ArcDecl::Kind::In);
    CHECK(shape(*t.arcs[1].multiplicity) == "2");
    CHECK(t.arcs[1].range == range(1, 42, 1, 45));
    CHECK(t.arcs[2].kind == ArcDecl::Kind::Inhibit);
    CHECK(shape(*t.arcs[2].multiplicity) == "K");
    CHECK(t.arcs[3].kind == ArcDecl::Kind::Inhibit);
    CHECK(shape(*t.arcs[3].place) == "d");

    auto bad = parse_text("net n { transition t ~ det(1 ms) { in a, ; out b; } }");
    CHECK(bad->diags.render().find("t.sgdnet:1:42: error: expected a place after ',' in the arc "
                                   "list, found ';'") != std::string::npos);
    const auto& kept = std::get<TransitionDecl>(std::get<NetDecl>(bad->ast.decls[0]).items[0]);
    CHECK(kept.arcs.size() == 2);  // `in a` and `out b`
}

TEST_CASE("parse: `[*]` marks the part it follows; two in one name are an error") {
    auto e = expr("sum(throughput(w[*].compute))");
    const auto& call = std::get<Call>(e->node);
    const auto& inner = std::get<Call>(call.args[0].value->node);
    const auto& ref = std::get<NameRef>(inner.args[0].value->node);
    CHECK(ref.wildcard == 0);
    CHECK(ref.parts == std::vector<std::string>{"w", "compute"});
    CHECK_FALSE(ref.index);
    const ExprPtr buf = expr("n.buf[*]");
    const auto& last = std::get<NameRef>(buf->node);
    CHECK(last.wildcard == 1);
    auto p = parse_text("measure m = sum(tokens(a[*].b[*]));");
    CHECK(p->diags.render().find("t.sgdnet:1:31: error: only one `[*]` is allowed in a name") !=
          std::string::npos);
}
