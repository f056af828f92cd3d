// Build tool: reads the built-in catalog (data/, embedded in this tool) as load_catalog reads it and
// writes the snapshot that gpuadvise embeds instead (cmake/EmbedData.cmake). An error in data/ fails
// the build here, with the messages `gpuadvise catalog validate` prints.
//   gpuadvise_make_snapshot OUTPUT
#include <cstdio>
#include <fstream>
#include <iostream>

#include "gpuadvise/errors.hpp"
#include "io/builtin_catalog.hpp"

using namespace gpuadvise;

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: gpuadvise_make_snapshot OUTPUT\n";
        return 2;
    }
    const std::string output = argv[1];
    try {
        const io::BuiltinCatalog builtin = io::read_builtin_catalog();
        const std::string bytes = io::write_builtin_snapshot(builtin);
        // Load the whole catalog from the snapshot as gpuadvise will (tables, GPU names, lint except
        // the date checks, which run at run time): errors throw; the result must equal the YAML path.
        io::CatalogOptions options;
        const Catalog from_snapshot = io::load_catalog(options, io::read_builtin_snapshot(bytes));
        if (!(from_snapshot == io::load_catalog(options, std::nullopt))) {
            std::cerr << "gpuadvise_make_snapshot: error: the catalog read back from the snapshot differs from data/; "
                         "a serialize function in src/io/catalog_snapshot.cpp misses a field\n";
            return 1;
        }
        const std::string partial = output + ".partial";
        {
            std::ofstream out(partial, std::ios::binary | std::ios::trunc);
            out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
            if (!out.flush()) throw DataError(partial + ": cannot write the snapshot");
        }
        if (std::rename(partial.c_str(), output.c_str()) != 0) throw DataError(output + ": cannot write the snapshot");
    } catch (const DataError& e) {
        for (const auto& d : e.details()) std::cerr << format_diagnostic(d) << "\n";
        std::cerr << "gpuadvise_make_snapshot: error: built-in data (data/): " << e.what() << "\n";
        return 1;
    }
    return 0;
}
