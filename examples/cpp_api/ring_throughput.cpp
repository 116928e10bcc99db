// Solves a ready-made training model through the library and prints its measures, then a small
// sweep over N.
//
//   ring_throughput [MODEL.sgdnet [SEED]]     default: the installed allreduce_ring_coarse.sgdnet,
//   seed 1
//
// The first part prints what `sgdnet run MODEL --seed SEED` computes (canonical units, 6
// significant digits); the second a sweep of the same model over N = 2, 4, 8, 16.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sgdnet/sgdnet.hpp>
#include <string>

int main(int argc, char** argv) {
    const std::string path =
        argc > 1 ? argv[1] : std::string(SGDNET_MODELS_DIR) + "/allreduce_ring_coarse.sgdnet";
    sgdnet::RunOptions options;
    options.seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
    try {
        const sgdnet::Model model = sgdnet::Model::compile_file(path);
        const sgdnet::Result result = model.run(options);
        std::printf("model %s, solver %s, sgdnet %s\n", model.name().c_str(), result.solver.c_str(),
                    sgdnet::version().c_str());
        for (const sgdnet::Measure& m : result.measures) {
            std::printf("%s %.6g %.6g %.6g %s\n", m.name.c_str(), m.mean, m.ci_low, m.ci_high,
                        m.unit.c_str());
        }
        // The same model at N = 2, 4, 8, 16 (`sgdnet sweep MODEL --set N=2..16:x2`), solved in
        // parallel, rows in order.
        sgdnet::SweepOptions sweep_options;
        sweep_options.run = options;
        const sgdnet::Sweep sweep = sgdnet::Sweep::compile_file(
            path, {sgdnet::SweepAxis::parse("N=2..16:x2")}, sweep_options);
        std::printf("\nN steps_per_s\n");
        sweep.run([](const sgdnet::SweepRow& row) {
            if (row.result)
                std::printf("%g %.6g\n", row.params[0].value, row.result->measures.front().mean);
        });
    } catch (const sgdnet::CompileError& e) {
        std::fprintf(stderr, "%s", e.rendered().c_str());
        return 2;
    } catch (const sgdnet::SolveError& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 3;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
    return 0;
}
