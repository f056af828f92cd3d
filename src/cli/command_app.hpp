// A command's parser: a CLI::App whose options' names are checked for clashes in two hash sets.
//
// CLI11 (2.1) checks a new option against every option its command already has, through
// Option::matching_name, which copies both options' name vectors for each pair: recommend's 113
// options were 3,760 comparisons, 1.9 of the 24 million instructions of `gpuadvise recommend --model
// bert --runs-per-week 4` and a third of its allocations (issue #32). A CommandApp sets its options
// aside while CLI11 adds the new one (so CLI11 compares it with none) and checks its names here
// instead: the same names clash (a short name with a short name, a long with a long, exactly as
// matching_name compares them) and the same OptionAlreadyAdded is thrown, with the command's options
// as they were. A command that folds case or underscores keeps CLI11's own check, which folds them
// (an option folding them on its own, ->ignore_case() after it is added, is not handled: none does).
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

namespace gpuadvise::cli {

class CommandApp : public CLI::App {
public:
    // A subcommand of `parent`, inheriting its settings (help flag, formatter, fallthrough, …) as
    // CLI::App::add_subcommand(name, description) does; add_command below adds it to `parent`.
    CommandApp(std::string description, std::string name, CLI::App* parent)
        : CLI::App(std::move(description), std::move(name), parent) {}

    // CLI11's calls of the same names and arguments, with the names checked here.
    template <typename... Args>
    CLI::Option* add_option(Args&&... args) {
        return added([&] { return CLI::App::add_option(std::forward<Args>(args)...); });
    }
    template <typename T, typename... Args>
    CLI::Option* add_option_function(Args&&... args) {
        return added([&] { return CLI::App::add_option_function<T>(std::forward<Args>(args)...); });
    }
    template <typename... Args>
    CLI::Option* add_flag(Args&&... args) {
        return added([&] { return CLI::App::add_flag(std::forward<Args>(args)...); });
    }
    template <typename... Args>
    CLI::Option* add_flag_function(Args&&... args) {
        return added([&] { return CLI::App::add_flag_function(std::forward<Args>(args)...); });
    }
    bool remove_option(CLI::Option* option) {
        named_ = options_.size() + 1;  // enter the names again, without the removed option's
        return CLI::App::remove_option(option);
    }

private:
    template <typename Add>
    CLI::Option* added(Add&& add) {
        if (ignore_case_ || ignore_underscore_) return add();
        name_options();
        std::vector<CLI::Option_p> kept;
        kept.swap(options_);
        // options_ holds only what `add` made: put back after it, whether it returns or throws.
        const auto restore = [&](bool keep_new) {
            if (keep_new)
                for (CLI::Option_p& o : options_) kept.push_back(std::move(o));
            options_.swap(kept);
        };
        CLI::Option* made = nullptr;
        try {
            made = add();
        } catch (...) {
            restore(true);  // CLI11 removed what it refused (a positional flag): nothing is left over
            throw;
        }
        if (const std::string_view clash = first_clash(*made); !clash.empty()) {
            const std::string name(clash);
            restore(false);
            throw CLI::OptionAlreadyAdded("added option matched existing option name: " + name);
        }
        restore(true);
        name_options();
        return made;
    }

    // Enters the names of the options not entered yet: those just added, and any CLI11 added itself
    // (the help flag, inherited at construction).
    void name_options() {
        if (named_ > options_.size()) {  // CLI11 removed some: enter them all again
            short_names_.clear();
            long_names_.clear();
            named_ = 0;
        }
        for (; named_ < options_.size(); ++named_) {
            for (const std::string& s : options_[named_]->get_snames()) short_names_.insert(s);
            for (const std::string& l : options_[named_]->get_lnames()) long_names_.insert(l);
        }
    }

    // The first of `o`'s names that another option has, or empty.
    std::string_view first_clash(const CLI::Option& o) const {
        for (const std::string& s : o.get_snames())
            if (short_names_.count(s) > 0) return s;
        for (const std::string& l : o.get_lnames())
            if (long_names_.count(l) > 0) return l;
        return {};
    }

    // Views of the names held by the options themselves (each on the heap, its names never changed).
    std::unordered_set<std::string_view> short_names_, long_names_;
    std::size_t named_ = 0;  // options_[0, named_) have their names entered
};

// A new CommandApp added to `parent` as its subcommand `name` (what parent.add_subcommand(name,
// description) does for a plain CLI::App).
inline CommandApp& add_command(CLI::App& parent, std::string name, std::string description) {
    auto command = std::make_shared<CommandApp>(std::move(description), std::move(name), &parent);
    parent.add_subcommand(command);
    return *command;
}

}  // namespace gpuadvise::cli
