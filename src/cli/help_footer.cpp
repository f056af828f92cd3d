#include "cli/help_footer.hpp"

#include <CLI/CLI.hpp>

#include <map>
#include <mutex>

namespace gpuadvise::cli {
namespace {

std::mutex registry_mutex;

// Footer text -> its blocks; one entry per distinct footer (a dozen), whatever the number of runs.
std::map<std::string, HelpFooter>& registry() {
    static std::map<std::string, HelpFooter> footers;
    return footers;
}

}  // namespace

std::string footer_text(const HelpFooter& footer) {
    std::string out;
    for (const auto& block : footer) {
        if (!out.empty()) out += "\n\n";
        if (block.kind == FooterBlock::Kind::examples) out += "Examples:";
        for (std::size_t i = 0; i < block.lines.size(); ++i) {
            if (block.kind == FooterBlock::Kind::examples)
                out += "\n  ";
            else if (i > 0)
                out += "\n";
            out += block.lines[i];
        }
    }
    return out;
}

void set_footer(CLI::App& app, const HelpFooter& footer) {
    std::string text = footer_text(footer);
    {
        const std::lock_guard<std::mutex> lock(registry_mutex);
        registry().try_emplace(text, footer);
    }
    app.footer(std::move(text));
}

const HelpFooter& footer_blocks(const std::string& text) {
    static const HelpFooter none;
    const std::lock_guard<std::mutex> lock(registry_mutex);
    const auto it = registry().find(text);
    return it == registry().end() ? none : it->second;
}

}  // namespace gpuadvise::cli
