#!/usr/bin/env bash
# The generated completion scripts: bash (loaded with bash-completion), zsh (its function run with the
# completion builtins stubbed) and fish (complete -C): candidates for a few command lines; zsh -n, fish -n.
#   check_completion.sh GPUADVISE COMPLETIONS_DIR
# COMPLETIONS_DIR holds gpuadvise, _gpuadvise and gpuadvise.fish (cmake/GenerateDocs.cmake).
# Exit 77 (CTest skip) with a message when bash-completion, zsh or fish is not installed.
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
dir=$2
missing=()
[ -r /usr/share/bash-completion/bash_completion ] || missing+=(bash-completion)
command -v zsh >/dev/null || missing+=(zsh)
command -v fish >/dev/null || missing+=(fish)
if [ ${#missing[@]} -gt 0 ]; then
    echo "SKIP: not installed: ${missing[*]} (./dev setup installs them: apt-get install ${missing[*]})"
    exit 77
fi
fail=0

# zsh and fish: the scripts parse.
zsh -n "$dir/_gpuadvise" || { echo "FAIL: zsh -n $dir/_gpuadvise"; fail=1; }
fish -n "$dir/gpuadvise.fish" || { echo "FAIL: fish -n $dir/gpuadvise.fish"; fail=1; }
# zsh: run the completion function with the completion system's builtins replaced by stubs that
# print what they were given (a real zsh completion needs a terminal), for a few command lines.
zsh_candidates() {  # WORDS...: the words typed, the last one being completed
    env -i PATH="$(dirname "$bin"):/usr/bin:/bin" HOME=/nonexistent zsh -f -c '
        _describe() { local name=$4; print -l -- ${${(P)name}%%:*}; }
        compadd() { if [[ $1 == -a ]]; then print -l -- ${(P)2}; else [[ $1 == -- ]] && shift; print -l -- "$@"; fi; }
        _files() { print -- "<files>"; }
        compset() { :; }
        _call_program() { shift; "$@"; }
        words=("${@:2}")
        CURRENT=${#words}
        source "$1"' zsh "$dir/_gpuadvise" "$@" | grep -- "^${*: -1}" | sort | tr '\n' ' '
}
zsh_expect() {  # WANT WORDS...
    local want=$1 got; shift
    got=$(zsh_candidates "$@")
    if [[ " $got" == *" $want "* ]]; then echo "ok: zsh '$*<Tab>' -> $got"; else echo "FAIL: zsh '$*<Tab>': got [$got], want $want among them"; fail=1; fi
}
zsh_expect recommend gpuadvise rec
zsh_expect markdown gpuadvise recommend --format ""
zsh_expect --objective gpuadvise recommend --obj
zsh_expect A100 gpuadvise compare A1
zsh_expect llama-2-7b gpuadvise recommend --model ll
zsh_expect spot gpuadvise offers --plan ""
zsh_expect spot gpuadvise recommend --plan ""

# fish: load the script and ask for real candidates.
fish_out=$(env -i PATH="$(dirname "$bin"):/usr/bin:/bin" HOME="$(mktemp -d)" fish --no-config -c \
    "source $dir/gpuadvise.fish; complete -C 'gpuadvise recommend --format '" 2>&1 | cut -f1)
for want in table json csv tsv markdown html; do
    grep -qx "$want" <<<"$fish_out" || { echo "FAIL: fish: 'gpuadvise recommend --format <Tab>' lacks $want: $fish_out"; fail=1; }
done
fish_out=$(env -i PATH="$(dirname "$bin"):/usr/bin:/bin" HOME="$(mktemp -d)" fish --no-config -c \
    "source $dir/gpuadvise.fish; complete -C 'gpuadvise compare A1'" 2>&1 | cut -f1)
grep -qx "A100" <<<"$fish_out" || { echo "FAIL: fish: 'gpuadvise compare A1<Tab>' lacks A100: $fish_out"; fail=1; }
fish_out=$(env -i PATH="$(dirname "$bin"):/usr/bin:/bin" HOME="$(mktemp -d)" fish --no-config -c \
    "source $dir/gpuadvise.fish; complete -C 'gpuadvise rec'" 2>&1 | cut -f1)
[ "$fish_out" = recommend ] || { echo "FAIL: fish: 'gpuadvise rec<Tab>': $fish_out"; fail=1; }
echo "fish: --format, compare A1 and rec checked"

# bash: candidates, with bash-completion loaded as in an interactive shell.
candidates() {
    env -i PATH="$(dirname "$bin"):/usr/bin:/bin" HOME=/nonexistent bash --norc --noprofile -c '
        source /usr/share/bash-completion/bash_completion
        source "$1"
        COMP_LINE=$2
        COMP_POINT=${#COMP_LINE}
        read -ra COMP_WORDS <<<"$COMP_LINE"
        [[ $COMP_LINE == *" " ]] && COMP_WORDS+=("")
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        COMPREPLY=()
        _gpuadvise gpuadvise "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
        printf "%s\n" "${COMPREPLY[@]}" | sort' bash "$dir/gpuadvise" "$1"
}
expect_exactly() {  # LINE WORDS...
    local line=$1; shift
    local got want
    got=$(candidates "$line" | tr '\n' ' ')
    want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
    if [ "$got" != "$want" ]; then echo "FAIL: '$line<Tab>': got [$got], want [$want]"; fail=1; else echo "ok: '$line<Tab>' -> $got"; fi
}
expect_prefix() {  # LINE PREFIX MIN_COUNT MUST_HAVE...: every candidate starts with PREFIX, at least MIN_COUNT
    local line=$1 prefix=$2 min=$3; shift 3
    local got n
    got=$(candidates "$line")
    n=$(grep -c . <<<"$got")
    if [ "$n" -lt "$min" ] || grep -qv "^$prefix" <<<"$got"; then
        echo "FAIL: '$line<Tab>': want >= $min candidates starting with $prefix, got: $(tr '\n' ' ' <<<"$got")"; fail=1
    fi
    for w in "$@"; do
        grep -qx -- "$w" <<<"$got" || { echo "FAIL: '$line<Tab>' lacks $w: $(tr '\n' ' ' <<<"$got")"; fail=1; }
    done
    echo "ok: '$line<Tab>' -> $(tr '\n' ' ' <<<"$got")"
}

expect_exactly "gpuadvise rec" recommend
expect_exactly "gpuadvise recommend --format " csv html json markdown table tsv
expect_exactly "gpuadvise --format=" csv html json markdown table tsv
expect_exactly "gpuadvise offers --plan " on-demand reserved reserved-1m reserved-1y reserved-3y spot
expect_exactly "gpuadvise recommend --plan " on-demand reserved reserved-1m reserved-1y reserved-3y spot
expect_exactly "gpuadvise recommend --objective " cost time balanced carbon
expect_exactly "gpuadvise catalog " validate info import update
expect_exactly "gpuadvise recommend --model bert --ta" --task
expect_exactly "gpuadvise completion " bash zsh fish
expect_prefix "gpuadvise compare A1" A1 3 A100 A100-80GB-PCIe
expect_prefix "gpuadvise compare A100 V100 A1" A1 3 A100
expect_prefix "gpuadvise recommend --model ll" ll 2 llama-2-7b
expect_prefix "gpuadvise offers --gpu H1" H1 2 H100
expect_prefix "gpuadvise recommend --provider a" a 1 aws
exit $fail
