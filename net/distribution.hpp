// Delay distributions of timed transitions (docs/language.md §4), in canonical units (seconds).
#pragma once

#include <string>
#include <variant>
#include <vector>

namespace sgdnet::net {

struct Distribution;

/// Always `value_s`.
struct Det {
    double value_s = 0;
    bool operator==(const Det&) const = default;
};
/// Exponential with rate `rate_per_s` (mean 1/rate).
struct Exp {
    double rate_per_s = 1;
    bool operator==(const Exp&) const = default;
};
/// Uniform on [low_s, high_s].
struct Uniform {
    double low_s = 0, high_s = 0;
    bool operator==(const Uniform&) const = default;
};
/// Normal(mean_s, sd_s) truncated at 0 by resampling.
struct Normal {
    double mean_s = 0, sd_s = 0;
    bool operator==(const Normal&) const = default;
};
/// Lognormal with the given mean and coefficient of variation.
struct Lognormal {
    double mean_s = 0, cv = 0;
    bool operator==(const Lognormal&) const = default;
};
/// Gamma with the given mean and coefficient of variation (shape 1/cv², scale mean·cv²).
struct Gamma {
    double mean_s = 0, cv = 0;
    bool operator==(const Gamma&) const = default;
};
/// Sum of k exponentials, total mean `mean_s`.
struct Erlang {
    int k = 1;
    double mean_s = 0;
    bool operator==(const Erlang&) const = default;
};
/// Weibull(shape, scale_s).
struct Weibull {
    double shape = 1, scale_s = 0;
    bool operator==(const Weibull&) const = default;
};
/// Resampled uniformly from `values_s` (non-empty, all >= 0).
struct Empirical {
    std::vector<double> values_s;
    bool operator==(const Empirical&) const = default;
};
/// Component `parts[j]` chosen with probability `probs[j]` (sum 1).
struct Mixture {
    std::vector<double> probs;
    std::vector<Distribution> parts;
    bool operator==(const Mixture&) const;
};
/// `base[0] * factor` (factor > 0); `D / X` is Scaled with factor 1/X.
struct Scaled {
    std::vector<Distribution> base;  // exactly one element
    double factor = 1;
    bool operator==(const Scaled&) const;
};
/// `base[0] + offset_s` (offset_s >= 0).
struct Shifted {
    std::vector<Distribution> base;  // exactly one element
    double offset_s = 0;
    bool operator==(const Shifted&) const;
};
/// Sum of independent samples of every part.
struct Sum {
    std::vector<Distribution> parts;
    bool operator==(const Sum&) const;
};

/// A delay distribution. Plain data: copyable and comparable.
struct Distribution {
    std::variant<Det, Exp, Uniform, Normal, Lognormal, Gamma, Erlang, Weibull, Empirical, Mixture,
                 Scaled, Shifted, Sum>
        v;
    bool operator==(const Distribution&) const = default;
};

inline bool Mixture::operator==(const Mixture& o) const {
    return probs == o.probs && parts == o.parts;
}
inline bool Scaled::operator==(const Scaled& o) const {
    return base == o.base && factor == o.factor;
}
inline bool Shifted::operator==(const Shifted& o) const {
    return base == o.base && offset_s == o.offset_s;
}
inline bool Sum::operator==(const Sum& o) const { return parts == o.parts; }

/// Mean of the distribution in seconds (the truncated normal's true mean, not its parameter).
double mean(const Distribution& d);
/// Variance in s².
double variance(const Distribution& d);
/// True when the distribution is exponential (possibly scaled): the CTMC solver accepts it.
bool is_exponential(const Distribution& d);
/// Rate (1/s) of an exponential distribution; precondition: is_exponential(d).
double exponential_rate(const Distribution& d);
/// Canonical text, e.g. `exp(rate=1.25)`, `det(0.004)`, `lognormal(mean=0.12, cv=0.05)`,
/// numbers printed with %.17g trimmed to the shortest exact form; used by the `net` printer.
std::string to_string(const Distribution& d);
/// Text for messages: at most 6 significant digits, times with a unit (ns, us, ms, s) and rates
/// in /s, e.g. `det(20 us)`, `exp(rate=1.25 /s)`, `lognormal(mean=120 ms, cv=0.05)`.
std::string to_readable_string(const Distribution& d);
/// Shortest text that reads back to exactly `v` (std::to_chars), e.g. `0.004`, `1e-06`, `25`.
std::string format_number(double v);

}  // namespace sgdnet::net
