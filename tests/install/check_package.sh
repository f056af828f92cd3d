#!/usr/bin/env bash
# The .deb: built with CPack from the binary already in BUILD_DIR (as `./dev package` does),
# extracted with dpkg-deb -x into a temporary root, its binary run (--version, a recommend), its man
# page read with man -l, its control fields checked against how the binary is linked, and lintian's
# verdict (errors and warnings fail; overrides with reasons are in packaging/lintian-overrides).
#   check_package.sh BUILD_DIR
# Exit 77 (CTest skip) with a message when cpack, dpkg-deb, man or lintian is missing.
set -u
build=$1
missing=()
for tool in cpack dpkg-deb man lintian file; do command -v "$tool" >/dev/null || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
    echo "SKIP: not installed: ${missing[*]} (./dev setup installs them)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

if ! (cd "$build" && cpack -G DEB -B "$tmp/pkg") >"$tmp/cpack.log" 2>&1; then
    cat "$tmp/cpack.log"
    bad "cpack -G DEB failed"
    exit 1
fi
deb=$(ls "$tmp"/pkg/*.deb)
echo "package: $(basename "$deb")"
dpkg-deb -f "$deb" >"$tmp/control"
cat "$tmp/control"
field() { dpkg-deb -f "$deb" "$1"; }
version=$(sed -n 's/^project(gpuadvise VERSION \([0-9.]*\).*/\1/p' "$(dirname "$0")/../../CMakeLists.txt")
[ "$(field Package)" = gpuadvise ] || bad "Package: $(field Package)"
[ "$(field Version)" = "$version" ] || bad "Version: '$(field Version)', want $version (CMakeLists.txt)"
[ "$(field Section)" = utils ] || bad "Section: $(field Section)"
[ -n "$(field Maintainer)" ] || bad "no Maintainer"
field Description | grep -q "PyTorch" || bad "Description does not say what it is"

dpkg-deb -x "$deb" "$tmp/root"
bin=$tmp/root/usr/bin/gpuadvise
[ -x "$bin" ] || { bad "no /usr/bin/gpuadvise in the package"; exit 1; }
# Depends against the linking: a static binary needs no library package; a dynamic one, libc6 at least.
if file -L "$bin" | grep -q "dynamically linked" && ! file -L "$bin" | grep -q "static-pie"; then
    field Depends | grep -q "libc6" || bad "dynamically linked binary but Depends: '$(field Depends)'"
else
    echo "binary: $(file -L "$bin" | cut -d: -f2 | cut -d, -f1-2)"
fi
# The download helper of `catalog update`, where gpuadvise looks for it (bin/../libexec/gpuadvise); it
# links libcurl, so Depends names libcurl (dpkg-shlibdeps) and libc6.
fetch=$tmp/root/usr/libexec/gpuadvise/gpuadvise-fetch
[ -x "$fetch" ] || bad "the package lacks /usr/libexec/gpuadvise/gpuadvise-fetch"
if [ -x "$fetch" ] && file -L "$fetch" | grep -q "dynamically linked"; then
    field Depends | grep -q "libcurl" || bad "gpuadvise-fetch links libcurl but Depends: '$(field Depends)'"
    field Depends | grep -q "libc6" || bad "gpuadvise-fetch is dynamic but Depends: '$(field Depends)'"
fi
echo "Depends: $(field Depends)"
for f in usr/share/man/man1/gpuadvise.1.gz usr/share/man/man1/gpuadvise-recommend.1.gz \
         usr/share/bash-completion/completions/gpuadvise usr/share/zsh/vendor-completions/_gpuadvise \
         usr/share/fish/vendor_completions.d/gpuadvise.fish usr/share/doc/gpuadvise/copyright \
         usr/share/doc/gpuadvise/changelog.gz usr/share/doc/gpuadvise/docs/usage.md \
         usr/share/lintian/overrides/gpuadvise; do
    [ -f "$tmp/root/$f" ] || bad "the package lacks /$f"
done

clean_env=(env -i PATH=/usr/bin:/bin HOME="$tmp/home" LC_ALL=C.UTF-8)
"${clean_env[@]}" "$bin" --version >"$tmp/version" 2>&1 || bad "--version exited $?"
cat "$tmp/version"
head -1 "$tmp/version" | grep -qx "gpuadvise $version" || bad "--version first line: $(head -1 "$tmp/version")"
grep -Eq "^built-in catalog: [0-9]{4}-[0-9]{2}-[0-9]{2}" "$tmp/version" || bad "--version names no catalog date"
grep -Eq "^commit: ([0-9a-f]{7,}(-dirty)?|unknown)$" "$tmp/version" || bad "--version names no commit"
if "${clean_env[@]}" "$bin" recommend --model bert --runs-per-week 4 >"$tmp/rec" 2>"$tmp/rec.err"; then
    grep -q "^Recommendations" "$tmp/rec" || bad "recommend printed no recommendations: $(head -5 "$tmp/rec")"
    echo "recommend --model bert --runs-per-week 4: $(grep -c . "$tmp/rec") lines, exit 0"
else
    bad "recommend --model bert --runs-per-week 4 exited $?: $(cat "$tmp/rec.err")"
fi
"${clean_env[@]}" MANWIDTH=80 man --warnings -l "$tmp/root/usr/share/man/man1/gpuadvise.1.gz" >"$tmp/man" 2>"$tmp/man.err" ||
    bad "man -l gpuadvise.1.gz exited $?"
[ -s "$tmp/man.err" ] && bad "man -l warned: $(cat "$tmp/man.err")"
grep -q "EXIT STATUS" "$tmp/man" || bad "the man page has no EXIT STATUS"
echo "man -l gpuadvise.1.gz: $(grep -c . "$tmp/man") lines"

lintian --fail-on error,warning --display-info "$deb" >"$tmp/lintian" 2>&1
rc=$?
cat "$tmp/lintian"
[ $rc -eq 0 ] || bad "lintian found errors or warnings (exit $rc)"
echo "lintian: exit $rc, $(grep -c '^E:' "$tmp/lintian") errors, $(grep -c '^W:' "$tmp/lintian") warnings"
exit $fail
