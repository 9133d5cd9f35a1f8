#!/usr/bin/env bash
# Builds the DocC documentation of the RealmActors module with the toolchain's own `docc`
# (offline, no plugin) into .docs/RealmActors.doccarchive, and fails on any documentation warning
# or on a public symbol without a doc comment.
#
#   bash Scripts/build-docs.sh            # build
#   bash Scripts/build-docs.sh --preview  # build, then serve the static site on http://localhost:8000
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=.build-docs
graphs="$scratch/symbolgraph-RealmActors"
out=.docs/RealmActors.doccarchive

# Only the public module is documented; the layers below have no public API.
swift build --scratch-path "$scratch" --target RealmActors >/dev/null
bin=$(swift build --scratch-path "$scratch" --show-bin-path)
triple=$(swiftc -print-target-info | python3 -c 'import json,sys; print(json.load(sys.stdin)["target"]["triple"])')
rm -rf "$graphs" && mkdir -p "$graphs"
sdk_args=()
if [[ "$(uname)" == Darwin ]]; then sdk_args=(-sdk "$(xcrun --show-sdk-path)"); fi
# The C targets below the storage layer (every Sources/C*: CRealmCrypto, CRealmPrefetch,
# CRealmSync) are found through the module maps SwiftPM generates for them.
c_args=()
for target in $(cd Sources && ls -d C*/ | tr -d /); do
    c_args+=(-Xcc -fmodule-map-file="$bin/$target.build/module.modulemap" -Xcc -I -Xcc "Sources/$target/include")
done
swift-symbolgraph-extract -module-name RealmActors -target "$triple" "${sdk_args[@]}" \
    -I "$bin/Modules" -module-cache-path "$bin/ModuleCache" "${c_args[@]}" \
    -minimum-access-level public -skip-inherited-docs -output-dir "$graphs"

# Every public symbol needs a doc comment (DocC itself does not check this).
python3 - "$graphs/RealmActors.symbols.json" <<'PY'
import json, sys
graph = json.load(open(sys.argv[1]))
missing = sorted(
    " ".join(s["pathComponents"])
    for s in graph["symbols"]
    if "docComment" not in s
    and "location" in s  # compiler-synthesized members (init(rawValue:)) have no source
    and s.get("accessLevel") in ("public", "open")
)
if missing:
    print("error: public symbols without a doc comment:", *missing, sep="\n  ")
    sys.exit(1)
PY

rm -rf "$out" && mkdir -p .docs
docc convert DocC/RealmActors.docc \
    --additional-symbol-graph-dir "$graphs" \
    --fallback-display-name RealmActors \
    --fallback-bundle-identifier org.realmactors.RealmActors \
    --transform-for-static-hosting \
    --warnings-as-errors \
    --output-path "$out"
echo "documentation: $out (open with: bash Scripts/build-docs.sh --preview)"

if [[ "${1:-}" == "--preview" ]]; then
    cd "$out" && python3 -m http.server 8000
fi
