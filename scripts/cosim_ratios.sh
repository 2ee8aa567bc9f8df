#!/usr/bin/env bash
# make cosim-ratios: the RTL/model cycle ratio of allreduce for every topology kind at 4 KiB and
# 64 KiB per chip (fabric run --backend both; each run also checks memories and every packet
# stream). Prints a table; about 10 minutes on 2 cores (the 64 KiB RTL runs take 30-80 s each).
# Usage: scripts/cosim_ratios.sh PATH/TO/fabric
set -euo pipefail
FABRIC=${1:?usage: cosim_ratios.sh PATH/TO/fabric}
kinds=(
  "ring:8|--dtype fp32 --op sum"
  "biring:8|--dtype fp32 --op sum"
  "ladder:8|--dtype bf16 --op sum"
  "line:8|--dtype fp32 --op sum"
  "tree:((2,1),3)|--dtype fp32 --op sum"
  "ring:6|--dtype int8 --op avg"
)
printf '%-16s %-6s %-5s %-4s %8s %8s %7s %8s %7s\n' topology size type op model rtl ratio packets wall_s
status=0
for k in "${kinds[@]}"; do
  topo=${k%%|*}
  args=${k#*|}
  for size in 4K 64K; do
    t0=$(date +%s)
    # shellcheck disable=SC2086
    out=$("$FABRIC" run --topology "$topo" --collective allreduce $args --bytes $size \
      --backend both --no-header 2>&1) || status=1
    model=$(awk '$NF == "model" {print $(NF-6)}' <<< "$out")
    rtl=$(awk '$NF == "rtl" {print $(NF-6)}' <<< "$out")
    pk=$(sed -n 's/.* \([0-9]*\) packets identical.*/\1/p' <<< "$out")
    ratio=$(awk -v r="${rtl:-0}" -v m="${model:-1}" 'BEGIN {printf "%.4f", r / m}')
    set -- $args
    printf '%-16s %-6s %-5s %-4s %8s %8s %7s %8s %7s\n' "$topo" "$size" "$2" "$4" "${model:--}" \
      "${rtl:--}" "$ratio" "${pk:-MISMATCH}" "$(($(date +%s) - t0))"
    grep -q 'packets identical' <<< "$out" || { echo "$out" | grep -v SystemC; status=1; }
  done
done
exit $status
