// Unit tests of the exporters: DOT renders warning-free, PNML parses back with matching element
// counts and values, JSON carries the whole IR.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <nlohmann/json.hpp>

#include "emit/emit.hpp"

using namespace sgdnet;
using namespace sgdnet::net;

namespace {

/// A net exercising every exporter feature: a name needing escapes, array-style names, a bound,
/// an inhibitor arc with multiplicity, infinite servers, speed, an immediate with weight.
PetriNet sample_net() {
    PetriNet n;
    n.name = "demo<&\"x\">";
    n.files = {"demo.sgdnet"};
    n.params = {{"K", 3}};
    n.places = {{"w[3].bwd", 2, std::nullopt, {0, {4, 3}, {4, 20}}},
                {"q \"a\" & <b>", 0, 5u, {}},
                {"done", 0, std::nullopt, {}}};
    Transition a;
    a.name = "w[3].fire";
    a.delay = Distribution{Lognormal{0.12, 0.05}};
    a.servers = kInfiniteServers;
    a.inputs = {{PlaceId{0}, 2}};
    a.outputs = {{PlaceId{1}, 1}};
    a.inhibitors = {{PlaceId{2}, 3}};
    Transition b;
    b.name = "serve";
    b.delay = Distribution{Exp{1.25}};
    b.memory = Memory::Age;
    b.speed = MarkingExpr::tokens(1);
    b.inputs = {{PlaceId{1}, 1}};
    b.outputs = {{PlaceId{0}, 2}, {PlaceId{2}, 1}};
    Transition c;
    c.name = "pick";
    c.kind = TransitionKind::Immediate;
    c.priority = 2;
    c.weight = 0.3;
    c.inputs = {{PlaceId{2}, 1}};
    c.outputs = {{PlaceId{2}, 1}};
    n.transitions = {a, b, c};
    Measure thr;
    thr.name = "thr";
    thr.terms = {{TransitionId{1}, 1}};
    thr.unit = "1/s";
    Measure q;
    q.name = "qlen";
    q.kind = Measure::Kind::TimeAverage;
    q.expr = MarkingExpr::tokens(1);
    q.unit = "tokens";
    n.measures = {thr, q};
    return n;
}

std::size_t count(const std::string& hay, const std::string& needle) {
    std::size_t k = 0;
    for (auto pos = hay.find(needle); pos != std::string::npos; pos = hay.find(needle, pos + 1)) {
        ++k;
    }
    return k;
}

std::string text_of(xmlNode* node) {
    xmlChar* s = xmlNodeGetContent(node);
    std::string out = s ? reinterpret_cast<const char*>(s) : "";
    xmlFree(s);
    return out;
}

std::string attr(xmlNode* node, const char* name) {
    xmlChar* s = xmlGetProp(node, reinterpret_cast<const xmlChar*>(name));
    std::string out = s ? reinterpret_cast<const char*>(s) : "";
    xmlFree(s);
    return out;
}

bool is(xmlNode* node, const char* name) {
    return node->type == XML_ELEMENT_NODE &&
           std::string(reinterpret_cast<const char*>(node->name)) == name;
}

xmlNode* child(xmlNode* node, const char* name) {
    for (xmlNode* c = node->children; c; c = c->next) {
        if (is(c, name)) return c;
    }
    return nullptr;
}

/// Every element named `name` below `node`, depth first.
void collect(xmlNode* node, const char* name, std::vector<xmlNode*>& out) {
    for (xmlNode* c = node->children; c; c = c->next) {
        if (is(c, name)) out.push_back(c);
        collect(c, name, out);
    }
}

}  // namespace

TEST_CASE("emit_dot: shapes, inhibitor heads, multiplicity labels, escaped names") {
    const std::string dot = emit::to_dot(sample_net());
    CHECK(dot.rfind("digraph \"demo<&\\\"x\\\">\" {\n", 0) == 0);
    CHECK(count(dot, "shape=circle") == 3);
    CHECK(count(dot, "[shape=box, label=") == 2);  // timed transitions
    CHECK(count(dot, "fillcolor=black") == 1);     // the immediate bar
    CHECK(count(dot, " -> ") == 8);                // 3 inputs + 4 outputs + 1 inhibitor
    CHECK(dot.find("p2 -> t0 [arrowhead=odot, label=\"3\"];") != std::string::npos);
    CHECK(dot.find("p0 -> t0 [label=\"2\"];") != std::string::npos);
    CHECK(dot.find("label=\"q \\\"a\\\" & <b>\\n0 (bound 5)\"") != std::string::npos);
    CHECK(dot.find("label=\"w[3].bwd\\n2\"") != std::string::npos);
    CHECK(dot.find(net::to_string(Distribution{Lognormal{0.12, 0.05}})) != std::string::npos);
}

#ifdef SGDNET_DOT_PROGRAM
TEST_CASE("emit_dot: dot -Tsvg renders the output without any warning") {
    const std::string dir = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp");
    const std::string in = dir + "/sgdnet_emit_test.dot", err = dir + "/sgdnet_emit_test.err";
    std::ofstream(in) << emit::to_dot(sample_net());
    const std::string cmd =
        std::string(SGDNET_DOT_PROGRAM) + " -Tsvg " + in + " -o /dev/null 2> " + err;
    CHECK(std::system(cmd.c_str()) == 0);
    std::ifstream e(err);
    const std::string warnings((std::istreambuf_iterator<char>(e)), {});
    CHECK(warnings == "");
    std::remove(in.c_str());
    std::remove(err.c_str());
}
#endif

TEST_CASE("emit_pnml: well-formed PT-net whose elements match the IR") {
    const PetriNet n = sample_net();
    const std::string text = emit::to_pnml(n);
    xmlDoc* doc = xmlReadMemory(text.data(), static_cast<int>(text.size()), "net.pnml", nullptr,
                                XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    REQUIRE(doc != nullptr);
    xmlNode* root = xmlDocGetRootElement(doc);
    REQUIRE(is(root, "pnml"));
    CHECK(std::string(reinterpret_cast<const char*>(root->ns->href)) ==
          "http://www.pnml.org/version-2009/grammar/pnml");
    xmlNode* netn = child(root, "net");
    REQUIRE(netn);
    CHECK(attr(netn, "type") == "http://www.pnml.org/version-2009/grammar/ptnet");
    CHECK(text_of(child(netn, "name")) == n.name);
    xmlNode* page = child(netn, "page");
    REQUIRE(page);

    std::vector<xmlNode*> places, transitions, arcs, inhibitors, immediates, timed;
    for (xmlNode* c = page->children; c; c = c->next) {
        if (is(c, "place")) places.push_back(c);
        if (is(c, "transition")) transitions.push_back(c);
        if (is(c, "arc")) arcs.push_back(c);
    }
    collect(page, "inhibitor", inhibitors);
    collect(page, "immediate", immediates);
    collect(page, "timed", timed);
    REQUIRE(places.size() == n.places.size());
    REQUIRE(transitions.size() == n.transitions.size());
    // P/T arcs are inputs + outputs (1+1, 1+2, 1+1); the inhibitor lives in <toolspecific>.
    CHECK(arcs.size() == 7);
    CHECK(inhibitors.size() == 1);
    CHECK(timed.size() == 2);
    CHECK(immediates.size() == 1);

    for (std::size_t k = 0; k < places.size(); ++k) {
        CHECK(attr(places[k], "id") == "p" + std::to_string(k));
        CHECK(text_of(child(places[k], "name")) == n.places[k].name);
        CHECK(text_of(child(places[k], "initialMarking")) == std::to_string(n.places[k].initial));
    }
    for (std::size_t k = 0; k < transitions.size(); ++k) {
        CHECK(text_of(child(transitions[k], "name")) == n.transitions[k].name);
    }
    // Arcs appear per transition: inputs then outputs, inscriptions are the multiplicities.
    std::vector<std::string> expected;
    for (std::size_t k = 0; k < n.transitions.size(); ++k) {
        const std::string t = "t" + std::to_string(k);
        for (const auto& a : n.transitions[k].inputs) {
            expected.push_back("p" + std::to_string(a.place.value) + ">" + t + ":" +
                               std::to_string(a.multiplicity));
        }
        for (const auto& a : n.transitions[k].outputs) {
            expected.push_back(t + ">p" + std::to_string(a.place.value) + ":" +
                               std::to_string(a.multiplicity));
        }
    }
    std::vector<std::string> got;
    for (xmlNode* a : arcs) {
        got.push_back(attr(a, "source") + ">" + attr(a, "target") + ":" +
                      text_of(child(a, "inscription")));
    }
    CHECK(got == expected);
    CHECK(attr(inhibitors[0], "place") == "p2");
    CHECK(attr(inhibitors[0], "multiplicity") == "3");
    CHECK(attr(immediates[0], "priority") == "2");
    CHECK(attr(immediates[0], "weight") == "0.3");
    CHECK(attr(timed[0], "servers") == "infinite");
    CHECK(attr(timed[1], "memory") == "age");
    std::vector<xmlNode*> delays;
    collect(page, "delay", delays);
    REQUIRE(delays.size() == 2);
    CHECK(text_of(delays[1]) == net::to_string(n.transitions[1].delay));
    CHECK(std::stod(attr(delays[1], "mean")) == doctest::Approx(0.8));  // 1 / 1.25 per second
    xmlFreeDoc(doc);
}

TEST_CASE("emit_json: the whole IR round-trips its structure") {
    const PetriNet n = sample_net();
    const auto j = nlohmann::json::parse(emit::to_json(n));
    CHECK(j["name"] == n.name);
    CHECK(j["params"]["K"] == 3);
    REQUIRE(j["places"].size() == 3);
    CHECK(j["places"][0]["name"] == "w[3].bwd");
    CHECK(j["places"][0]["initial"] == 2);
    CHECK(j["places"][0]["where"]["file"] == "demo.sgdnet");
    CHECK(j["places"][0]["where"]["begin"] == nlohmann::json::array({4, 3}));
    CHECK(j["places"][1]["bound"] == 5);
    CHECK(j["places"][2]["bound"].is_null());
    REQUIRE(j["transitions"].size() == 3);
    CHECK(j["transitions"][0]["kind"] == "timed");
    CHECK(j["transitions"][0]["servers"] == "infinite");
    CHECK(j["transitions"][0]["delay"]["type"] == "lognormal");
    CHECK(j["transitions"][0]["delay"]["mean_s"] == 0.12);
    CHECK(j["transitions"][0]["inhibitors"][0]["multiplicity"] == 3);
    CHECK(j["transitions"][1]["delay"]["rate_per_s"] == 1.25);
    CHECK(j["transitions"][1]["memory"] == "age");
    CHECK(j["transitions"][1]["speed"]["postfix"][0]["op"] == "tokens");
    CHECK(j["transitions"][1]["outputs"].size() == 2);
    CHECK(j["transitions"][2]["kind"] == "immediate");
    CHECK(j["transitions"][2]["weight"] == 0.3);
    CHECK(j["transitions"][2]["priority"] == 2);
    REQUIRE(j["measures"].size() == 2);
    CHECK(j["measures"][0]["kind"] == "throughput");
    CHECK(j["measures"][0]["terms"][0]["transition"] == 1);
    CHECK(j["measures"][1]["kind"] == "time_average");
    CHECK(j["measures"][1]["unit"] == "tokens");
}

TEST_CASE("emit_json: nested distributions are tagged objects") {
    PetriNet n = sample_net();
    Mixture m;
    m.probs = {0.25, 0.75};
    m.parts = {Distribution{Det{1}}, Distribution{Scaled{{Distribution{Exp{2}}}, 3}}};
    n.transitions[0].delay = Distribution{m};
    const auto j = nlohmann::json::parse(emit::to_json(n));
    const auto& d = j["transitions"][0]["delay"];
    CHECK(d["type"] == "mixture");
    CHECK(d["probs"] == nlohmann::json::array({0.25, 0.75}));
    CHECK(d["parts"][1]["type"] == "scaled");
    CHECK(d["parts"][1]["factor"] == 3);
    CHECK(d["parts"][1]["base"]["rate_per_s"] == 2);
}
