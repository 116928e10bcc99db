// Unit tests of raw-net lowering through compile(): arrays, arcs, attributes, measures.
#include <doctest/doctest.h>

#include "compiler/compile.hpp"

using namespace sgdnet::compiler;
namespace net = sgdnet::net;

namespace {

struct Compiled {
    Diagnostics diags;
    std::optional<net::PetriNet> net;
    explicit Compiled(const std::string& text, CompileOptions o = {}) {
        net = compile(text, "dir/model.sgdnet", o, diags);
    }
    const net::Transition& t(const std::string& name) const {
        auto id = net->find_transition(name);
        REQUIRE_MESSAGE(id, name);
        return net->transition(*id);
    }
    uint32_t p(const std::string& name) const {
        auto id = net->find_place(name);
        REQUIRE_MESSAGE(id, name);
        return id->value;
    }
};

const char* kMm1 = R"(
net mm1 {
  place queue = 0;
  place idle  = 1;
  transition arrive ~ exp(rate = 1 /s)         { out queue; }
  transition serve  ~ exp(mean = 800 ms)       { in queue; }
}
measure thr  = throughput(mm1.serve);
measure qlen = tokens(mm1.queue);
measure busy = prob(mm1.queue > 0);
)";

}  // namespace

TEST_CASE("the M/M/1 net of docs/language.md §6") {
    Compiled c(kMm1);
    REQUIRE_MESSAGE(c.net, c.diags.render());
    CHECK(c.net->name == "model");  // file stem, no `model` declaration
    CHECK(c.net->places.size() == 2);
    CHECK(c.net->place(net::PlaceId{c.p("mm1.idle")}).initial == 1);
    CHECK(c.t("mm1.serve").delay == net::Distribution{net::Exp{1.25}});  // 1 / 0.8 s
    CHECK(c.t("mm1.arrive").outputs == std::vector<net::Arc>{{net::PlaceId{c.p("mm1.queue")}, 1}});
    REQUIRE(c.net->measures.size() == 3);
    CHECK(c.net->measures[0].kind == net::Measure::Kind::Throughput);
    CHECK(c.net->measures[0].unit == "1/s");
    CHECK(c.net->measures[1].kind == net::Measure::Kind::TimeAverage);
    CHECK(c.net->measures[1].expr == net::MarkingExpr::tokens(c.p("mm1.queue")));
    // prob(queue > 0): 1 when the queue holds tokens, 0 otherwise.
    uint32_t marking[2] = {0, 1};
    CHECK(c.net->measures[2].expr.evaluate(marking) == 0);
    marking[c.p("mm1.queue")] = 2;
    CHECK(c.net->measures[2].expr.evaluate(marking) == 1);
    CHECK(c.net->files.at(0) == "dir/model.sgdnet");
    CHECK(c.t("mm1.serve").where.begin.line == 6);
}

TEST_CASE("arrays expand with index arithmetic and net params; --set NET.PARAM overrides") {
    const char* text = R"(
model ring;
net shared {
  param K = 3;
  place buf[K] = i == 0 ? 2 : 0;
  transition move[j in 0..K-1] ~ det(1 ms) { in buf[j]; out buf[(j + 1) % K]; }
  transition back[j in 1..K-1] ~ det(j * 1 ms) server infinite { in buf[j]*2; out buf[j - 1]; }
}
measure moves = throughput(shared.move);
)";
    Compiled c(text);
    REQUIRE_MESSAGE(c.net, c.diags.render());
    CHECK(c.net->name == "ring");
    CHECK(c.net->places.size() == 3);
    CHECK(c.net->place(net::PlaceId{c.p("shared.buf[0]")}).initial == 2);
    CHECK(c.t("shared.move[2]").outputs[0].place.value == c.p("shared.buf[0]"));  // (2+1) % 3
    CHECK(c.t("shared.back[2]").delay == net::Distribution{net::Det{0.002}});
    CHECK(c.t("shared.back[1]").inputs[0].multiplicity == 2);
    CHECK(c.t("shared.back[1]").servers == net::kInfiniteServers);
    CHECK_FALSE(c.net->find_transition("shared.back[0]"));
    REQUIRE(c.net->measures.size() == 1);
    CHECK(c.net->measures[0].terms.size() == 3);  // the sum over move[0..2]
    REQUIRE(c.net->params.size() == 1);
    CHECK(c.net->params[0].name == "shared.K");

    CompileOptions o;
    o.overrides = {{"shared.K", "5"}};
    Compiled c5(text, o);
    REQUIRE_MESSAGE(c5.net, c5.diags.render());
    CHECK(c5.net->places.size() == 5);
    CHECK(c5.net->params[0].value == 5);
}

TEST_CASE("immediates, inhibitors, test arcs and marking-dependent speed") {
    const char* text = R"(
net n {
  place a = 2; place b; place c; place active = 1;
  immediate pick priority 2 weight 0.3 { in a*2; out b; inhibit c*3; }
  transition look ~ exp(rate = 2 Hz) { in b; out b; out c; }
  transition work ~ det(10 ms) speed = 1 / tokens(active) { in c; }
}
measure m = tokens(n.b) + 2 * tokens(n.c);
)";
    Compiled c(text);
    REQUIRE_MESSAGE(c.net, c.diags.render());
    const auto& pick = c.t("n.pick");
    CHECK(pick.kind == net::TransitionKind::Immediate);
    CHECK(pick.priority == 2);
    CHECK(pick.weight == doctest::Approx(0.3));
    CHECK(pick.inhibitors == std::vector<net::Arc>{{net::PlaceId{c.p("n.c")}, 3}});
    const auto& look = c.t("n.look");  // test arc: b both in and out
    CHECK(look.inputs[0].place == look.outputs[0].place);
    const auto& work = c.t("n.work");
    REQUIRE(work.speed);
    CHECK(work.memory == net::Memory::Age);  // speed implies age memory
    uint32_t marking[4] = {0, 0, 0, 4};
    CHECK(work.speed->evaluate(marking) == doctest::Approx(0.25));
    uint32_t m2[4] = {0, 1, 3, 0};
    CHECK(c.net->measures[0].expr.evaluate(m2) == 7);  // 1 + 2*3
}

TEST_CASE("raw-net errors are all reported") {
    const char* text = R"(
net n {
  place a = 5 bound = 3;
  place q[0];
  transition t ~ exp(mean = 1 s) server = sngle memory = forever { in aa; }
  immediate u weight 0 { in a; }
}
measure x = throughput(n.tt);
)";
    Compiled c(text);
    CHECK_FALSE(c.net);
    std::string out = c.diags.render();
    CHECK(out.find("place `n.a` starts with 5 tokens, above its bound 3") != std::string::npos);
    CHECK(out.find("an array size must be in 1..1000000, got 0") != std::string::npos);
    CHECK(out.find("did you mean `single`?") != std::string::npos);
    CHECK(out.find("`memory` must be `enabling` or `age`") != std::string::npos);
    CHECK(out.find("unknown place `aa` in net `n`; did you mean `a`?") != std::string::npos);
    CHECK(out.find("a weight must be > 0, got 0") != std::string::npos);
}

TEST_CASE("an unreadable file is a diagnostic") {
    Diagnostics diags;
    CHECK_FALSE(compile_file("/nonexistent/dir/m.sgdnet", {}, diags));
    CHECK(diags.render().find("cannot read /nonexistent/dir/m.sgdnet: No such file or directory") !=
          std::string::npos);
}

TEST_CASE("names indexed in the middle: measures only; not places of arcs, not values") {
    {
        Diagnostics d;
        auto n = compile("net a { place p[2] = 1; transition t ~ det(1 ms) { in p[0]; out a[1].p; } }",
                         "mid.sgdnet", {}, d);
        CHECK_FALSE(n);
        CHECK(d.render().find("expected a place name `P`, `P[k]`, `NET.P` or `NET.P[k]`") !=
              std::string::npos);
    }
    {
        Diagnostics d;
        auto n = compile("param x = w[1].ready;\nnet a { place p = 1; transition t ~ det(1 ms) { in p; out p; } }",
                         "mid.sgdnet", {}, d);
        CHECK_FALSE(n);
        CHECK(d.render().find("names a generated element; only a measure can use it") !=
              std::string::npos);
    }
    {
        // On a training model: the measure's terms are the generated elements named.
        Diagnostics d;
        auto n = compile("param K = 1;\nworker w[2] { compute = det(1 ms); bandwidth = 1 Gbps; }\n"
                         "training { sync = allreduce_ring; model_bytes = 1 MB; }\n"
                         "measure c = throughput(w[K].compute) - throughput(w[0].compute) / 2;\n"
                         "measure r = prob(w[K - 1].ready > 0);",
                         "mid.sgdnet", {}, d);
        REQUIRE_MESSAGE(n, d.render());
        const auto& c = n->measures[n->measures.size() - 2];
        REQUIRE(c.terms.size() == 2);
        CHECK(c.terms[0].transition == *n->find_transition("w[1].compute"));
        CHECK(c.terms[0].coef == 1);
        CHECK(c.terms[1].transition == *n->find_transition("w[0].compute"));
        CHECK(c.terms[1].coef == -0.5);
        const auto& r = n->measures.back();
        REQUIRE(r.expr.code.size() >= 1);
        CHECK(r.expr.code[0].code == sgdnet::net::ExprOp::Code::Tokens);
        CHECK(r.expr.code[0].place == n->find_place("w[0].ready")->value);
    }
}
