#!/usr/bin/env bash
# Builds every DocC catalog (Sources/*/*.docc) with DocC's warnings as errors: a broken symbol or article link, a
# curation of a symbol that is not there, a parameter without documentation. Run after a debug build of the package
# (CI runs it after the tests' build, whose modules it reads).
#
# The symbol graphs are extracted here rather than by swift-docc-plugin because `import OpenHealthKit` gives the
# targets it re-exports (HealthKitModel, WorkoutEngine), and only swift-symbolgraph-extract's
# `-experimental-allowed-reexported-modules` puts their symbols in OpenHealthKit's graph: with the plugin, ``HKWorkout``
# would not resolve in OpenHealthKit's articles. Output: .build/documentation/TARGET.doccarchive.
set -euo pipefail
cd "$(dirname "$0")/.."
modules=$(swift build --show-bin-path)/Modules
[ -d "$modules" ] || { echo "build-documentation: no $modules; run swift build first" >&2; exit 1; }
case "$(uname -m)" in
    x86_64) triple=x86_64-unknown-linux-gnu ;;
    aarch64 | arm64) triple=aarch64-unknown-linux-gnu ;;
    *) echo "build-documentation: unknown machine $(uname -m)" >&2; exit 1 ;;
esac
# The module maps of the C modules the documented targets import: ours, our dependencies', and SwiftPM's generated ones.
includes=()
while IFS= read -r directory; do includes+=(-I "$directory"); done < <(
    find Sources .build/checkouts/*/Sources -maxdepth 3 -name module.modulemap -printf '%h\n' 2>/dev/null | sort -u)
for map in "$(dirname "$modules")"/*.build/module.modulemap; do
    [ -f "$map" ] && includes+=(-Xcc "-fmodule-map-file=$map")
done
mkdir -p .build/documentation
status=0
for catalog in Sources/*/*.docc; do
    target=$(basename "$(dirname "$catalog")")
    graphs=.build/symbol-graphs/$target
    rm -rf "$graphs" && mkdir -p "$graphs"
    reexported=()
    [ "$target" = OpenHealthKit ] && reexported=(-experimental-allowed-reexported-modules=HealthKitModel,WorkoutEngine)
    swift-symbolgraph-extract -module-name "$target" -target "$triple" -I "$modules" "${includes[@]}" \
        -minimum-access-level public -emit-extension-block-symbols -output-dir "$graphs" "${reexported[@]}"
    log=$(mktemp)
    built=0
    docc convert "$catalog" --additional-symbol-graph-dir "$graphs" \
        --output-path ".build/documentation/$target.doccarchive" \
        --fallback-display-name "$target" --fallback-bundle-identifier "$target" --warnings-as-errors >"$log" 2>&1 ||
        built=$?
    cat "$log"
    if [ "$built" -ne 0 ] || grep -q "warning:\|error:" "$log"; then
        echo "build-documentation: $target's documentation has warnings or errors (above)" >&2
        status=1
    fi
    rm -f "$log"
done
exit $status
