// A finished sweep point as bytes between ranks: fixed-width little-endian integers, doubles as
// their 8 bytes, strings as a length and their bytes, optionals as a flag and a value.
#include "mpi/row_codec.hpp"

#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>

namespace sgdnet::mpi {
namespace {

static_assert(std::endian::native == std::endian::little, "the codec assumes little-endian ranks");

class Writer {
  public:
    void u8(std::uint8_t v) { out_.push_back(static_cast<char>(v)); }
    void u64(std::uint64_t v) { raw(&v, sizeof v); }
    void f64(double v) { raw(&v, sizeof v); }
    void str(const std::string& s) {
        u64(s.size());
        out_ += s;
    }
    template <class T, class F>
    void opt(const std::optional<T>& v, F put) {
        u8(v.has_value());
        if (v) (this->*put)(*v);
    }
    std::string take() { return std::move(out_); }

  private:
    void raw(const void* p, std::size_t n) { out_.append(static_cast<const char*>(p), n); }
    std::string out_;
};

class Reader {
  public:
    explicit Reader(const std::string& in) : in_(in) {}
    std::uint8_t u8() {
        std::uint8_t v = 0;
        raw(&v, 1);
        return v;
    }
    std::uint64_t u64() {
        std::uint64_t v = 0;
        raw(&v, sizeof v);
        return v;
    }
    double f64() {
        double v = 0;
        raw(&v, sizeof v);
        return v;
    }
    std::string str() {
        const std::uint64_t n = u64();
        if (n > in_.size() - at_) throw CodecError("row bytes: a string runs past the end");
        std::string s = in_.substr(at_, n);
        at_ += n;
        return s;
    }
    template <class T, class F>
    std::optional<T> opt(F get) {
        if (!u8()) return std::nullopt;
        return static_cast<T>((this->*get)());
    }
    bool at_end() const { return at_ == in_.size(); }

  private:
    void raw(void* p, std::size_t n) {
        if (n > in_.size() - at_) throw CodecError("row bytes: truncated");
        std::memcpy(p, in_.data() + at_, n);
        at_ += n;
    }
    const std::string& in_;
    std::size_t at_ = 0;
};

void put_result(Writer& w, const solver::SolveResult& r) {
    w.str(r.solver);
    w.u64(r.measures.size());
    for (const auto& m : r.measures) {
        w.str(m.name);
        w.f64(m.mean);
        w.f64(m.ci_low);
        w.f64(m.ci_high);
        w.str(m.unit);
    }
    w.u64(r.stats.replications);
    w.u64(r.stats.events);
    w.f64(r.stats.simulated_s);
    w.f64(r.stats.wall_s);
    w.opt(r.stats.states, &Writer::u64);
    w.opt(r.stats.residual, &Writer::f64);
    w.opt(r.stats.iterations, &Writer::u64);
    w.opt(r.stats.method, &Writer::str);
    w.u8(r.precision_reached);
    w.u64(r.warnings.size());
    for (const auto& s : r.warnings) w.str(s);
}

solver::SolveResult get_result(Reader& r) {
    solver::SolveResult out;
    out.solver = r.str();
    for (std::uint64_t n = r.u64(); n > 0; --n) {
        auto& m = out.measures.emplace_back();
        m.name = r.str();
        m.mean = r.f64();
        m.ci_low = r.f64();
        m.ci_high = r.f64();
        m.unit = r.str();
    }
    out.stats.replications = r.u64();
    out.stats.events = r.u64();
    out.stats.simulated_s = r.f64();
    out.stats.wall_s = r.f64();
    out.stats.states = r.opt<std::uint64_t>(&Reader::u64);
    out.stats.residual = r.opt<double>(&Reader::f64);
    out.stats.iterations = r.opt<std::uint64_t>(&Reader::u64);
    out.stats.method = r.opt<std::string>(&Reader::str);
    out.precision_reached = r.u8() != 0;
    for (std::uint64_t n = r.u64(); n > 0; --n) out.warnings.push_back(r.str());
    return out;
}

void put_error(Writer& w, const solver::SolveError& e) {
    w.u8(static_cast<std::uint8_t>(e.kind()));
    w.str(e.what());
    const auto widen = [](std::optional<std::uint32_t> v) {
        return v ? std::optional<std::uint64_t>(*v) : std::nullopt;
    };
    w.opt(widen(e.place()), &Writer::u64);
    w.opt(widen(e.transition()), &Writer::u64);
}

solver::SolveError get_error(Reader& r) {
    const auto kind = static_cast<solver::SolveError::Kind>(r.u8());
    std::string message = r.str();
    const auto place = r.opt<std::uint32_t>(&Reader::u64);
    const auto transition = r.opt<std::uint32_t>(&Reader::u64);
    return solver::SolveError(kind, std::move(message), place, transition);
}

}  // namespace

std::string encode_row(const sweep::SweepRow& row) {
    Writer w;
    w.u64(row.index);
    w.u8(row.result ? 1 : 0);
    if (row.result) {
        put_result(w, *row.result);
    } else {
        put_error(w, *row.error);
    }
    return w.take();
}

sweep::SweepRow decode_row(const std::string& bytes) {
    Reader r(bytes);
    sweep::SweepRow row;
    row.index = r.u64();
    if (r.u8()) {
        row.result = get_result(r);
    } else {
        row.error = get_error(r);
    }
    if (!r.at_end()) throw CodecError("row bytes: trailing bytes");
    return row;
}

}  // namespace sgdnet::mpi
