// The text under a command's --help, as data: paragraphs and example command lines. CLI11 prints
// the text; the manual pages (docgen.cpp) read the blocks, so no one parses the printed footer.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace gpuadvise::cli {

// What gpuadvise is, in one line: --help's first line ("gpuadvise — ...") and the man page's NAME.
inline constexpr const char* kProductSummary =
    "which GPU cloud offer to rent for a PyTorch job, on which plan, and why";

struct FooterBlock {
    enum class Kind {
        paragraph,     // prose; its lines are printed as given and joined by spaces in a manual page
        examples,      // command lines, printed under "Examples:" two spaces in
        exit_summary,  // the top-level exit codes and docs line (the manual page has EXIT STATUS)
    };
    Kind kind = Kind::paragraph;
    std::vector<std::string> lines;
};

using HelpFooter = std::vector<FooterBlock>;

// The footer's text: its blocks apart by a blank line.
std::string footer_text(const HelpFooter& footer);

// Sets `app`'s --help footer to footer_text(footer) and keeps the blocks for footer_blocks.
void set_footer(CLI::App& app, const HelpFooter& footer);

// The blocks of a footer set with set_footer, by its text; empty for any other text.
const HelpFooter& footer_blocks(const std::string& text);

}  // namespace gpuadvise::cli
