// gpuadvise completion SHELL, and the two hidden commands behind the installed files:
// `gpuadvise man [COMMAND] [--output-dir DIR]` (the man pages) and `gpuadvise __complete KIND`
// (the catalog's GPU names, model presets or provider ids, one a line, for the completion scripts).
// All three read the command tree that --help prints (cli/docgen.hpp).
#include <algorithm>
#include <fstream>
#include <memory>
#include <set>

#include "cli/commands.hpp"
#include "cli/docgen.hpp"
#include "cli/help_footer.hpp"
#include "gpuadvise/base/errors.hpp"
#include "gpuadvise/base/text.hpp"

namespace gpuadvise::cli {
namespace {

const CLI::App& root_of(const CLI::App& sub) {
    const CLI::App* a = &sub;
    while (a->get_parent()) a = a->get_parent();
    return *a;
}

void write_text_file(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush())
        throw DataError(path + ": cannot write the file", {},
                        "check that the directory exists and is writable");
}

int run_man(Context& ctx, const CLI::App& root, const std::string& command, const std::string& output_dir) {
    const CLI::App* page = nullptr;
    if (!command.empty()) {
        std::vector<std::string> names;
        for (const CLI::App* sub : visible_subcommands(root)) {
            names.push_back(sub->get_name());
            if (sub->get_name() == command) page = sub;
        }
        if (!page) {
            auto best = closest_match(command, names);
            throw UsageError("man: no command '" + command + "'",
                             best ? "did you mean '" + *best + "'?" : "commands: " + join(names, ", "));
        }
    }
    if (output_dir.empty()) {
        ctx.out << man_page(root, page);
        return 0;
    }
    // Every page: gpuadvise.1 and gpuadvise-COMMAND.1.
    write_text_file(output_dir + "/gpuadvise.1", man_page(root, nullptr));
    for (const CLI::App* sub : visible_subcommands(root))
        write_text_file(output_dir + "/gpuadvise-" + sub->get_name() + ".1", man_page(root, sub));
    return 0;
}

// Names with white space are left out: a shell completes words.
void print_values(Context& ctx, std::vector<std::string> values) {
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    for (const auto& v : values)
        if (!v.empty() && v.find_first_of(" \t\n") == std::string::npos) ctx.out << v << "\n";
}

int run_complete_values(Context& ctx, const std::string& kind) {
    const Catalog& catalog = ctx.catalog();
    std::vector<std::string> values;
    if (kind == "gpus") {
        for (const auto& g : catalog.gpus) {
            values.push_back(g.family);
            values.push_back(g.id);
            values.insert(values.end(), g.aliases.begin(), g.aliases.end());
        }
    } else if (kind == "models") {
        for (const auto& m : catalog.models) {
            values.push_back(m.id);
            values.insert(values.end(), m.aliases.begin(), m.aliases.end());
        }
    } else {
        for (const auto& p : catalog.providers) values.push_back(p.id);
    }
    print_values(ctx, values);
    return 0;
}

}  // namespace

Runner setup_completion(CommandApp& sub) {
    auto shell = std::make_shared<std::string>();
    sub.add_option("shell", *shell, "The shell to write the script for")
        ->required()
        ->check(one_of({"bash", "zsh", "fish"}));
    set_footer(sub,
               {{FooterBlock::Kind::examples,
                 {"gpuadvise completion bash > ~/.local/share/bash-completion/completions/gpuadvise",
                  "gpuadvise completion zsh > \"${fpath[1]}/_gpuadvise\"",
                  "gpuadvise completion fish > ~/.config/fish/completions/gpuadvise.fish"}},
                {FooterBlock::Kind::paragraph,
                 {"The .deb and 'cmake --install' install all three scripts already. The scripts complete "
                  "commands, options and their values; GPU names, model presets and provider ids come "
                  "from the catalog at Tab time."}}});
    const CLI::App* self = &sub;
    return [shell, self](Context& ctx) {
        ctx.out << completion_script(root_of(*self), *shell);
        return 0;
    };
}

Runner setup_man(CommandApp& sub) {
    sub.group("");  // hidden: the build writes the pages, man(1) reads them
    auto command = std::make_shared<std::string>();
    auto output_dir = std::make_shared<std::string>();
    sub.add_option("command", *command, "The command whose page to print (default: gpuadvise(1))");
    sub.add_option("--output-dir", *output_dir, "Write every page into this directory instead")
        ->type_name("DIR");
    const CLI::App* self = &sub;
    return [command, output_dir, self](Context& ctx) {
        return run_man(ctx, root_of(*self), *command, *output_dir);
    };
}

Runner setup_complete_values(CommandApp& sub) {
    sub.group("");  // hidden: the completion scripts call it
    auto kind = std::make_shared<std::string>();
    sub.add_option("kind", *kind, "What to list")->required()->check(one_of({"gpus", "models", "providers"}));
    return [kind](Context& ctx) { return run_complete_values(ctx, *kind); };
}

}  // namespace gpuadvise::cli
