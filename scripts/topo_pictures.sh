#!/usr/bin/env bash
# The topology pictures in docs/img (docs/topology.md section 9, README.md): one `fabric topo`
# command per picture, writing docs/img/NAME.dot and NAME.png. The PNG bytes depend on the
# Graphviz version, so the committed .dot files are what is checked: with --check, writes them
# under build/topo_pictures and fails if a committed one differs (make test runs it; run this
# script without --check, or make topo-pictures, and commit docs/img after changing
# sw/lib/topo_dot.cpp or a topology).
# Usage: scripts/topo_pictures.sh PATH/TO/fabric [--check]
set -euo pipefail
cd "$(dirname "$0")/.."
FABRIC=${1:?usage: topo_pictures.sh PATH/TO/fabric [--check]}
check=${2:-}
out=docs/img
if [[ $check == --check ]]; then
  out=build/topo_pictures
  rm -rf "$out"
fi
mkdir -p "$out"
pictures=(  # NAME TOPOLOGY
  "topo_ladder8 ladder:8"
  "topo_tree_asym tree:((2,2),3,(1,4))"
  "topo_biring8 biring:8"
)
for p in "${pictures[@]}"; do
  read -r name topo <<< "$p"
  if [[ $check == --check ]]; then
    "$FABRIC" topo "$topo" --dot "$out/$name.dot" > /dev/null
    diff -q "docs/img/$name.dot" "$out/$name.dot" > /dev/null || {
      echo "topo_pictures: docs/img/$name.dot is stale; run make topo-pictures and commit" \
           "docs/img/$name.dot and .png" >&2; exit 1; }
  else
    "$FABRIC" topo "$topo" --dot "$out/$name.dot" --png "$out/$name.png"
  fi
done
if [[ $check == --check ]]; then
  echo "topo_pictures: docs/img/topo_*.dot are up to date"
fi
