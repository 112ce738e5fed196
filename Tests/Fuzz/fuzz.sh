#!/bin/sh
# Builds CardKit's libFuzzer harnesses into one binary (.build/fuzz/cardkit-fuzz, with
# AddressSanitizer) and runs each for a number of runs or seconds:
#
#   Tests/Fuzz/fuzz.sh --runs 3000                 # what `make test` does: seconds, seed 1
#   Tests/Fuzz/fuzz.sh --seconds 600               # what `make fuzz` does: 10 minutes each
#   Tests/Fuzz/fuzz.sh --seconds 3600 session      # one harness, longer
#
# Harnesses: key-decoder, rule-file, session, check-record, postal-codes, message-catalog, track-data, chip-flow,
# session-record. Each starts from the seed corpus
# in Tests/Fuzz/corpus/<harness> (never written to); what it finds goes to
# .build/fuzz/corpus-<harness>, and a crashing input to .build/fuzz/crash-*.
set -eu
cd "$(dirname "$0")/../.."
# A run by count (make test's smoke run) has a fixed seed: the same inputs on every machine,
# so that CI passes or fails on the code, not on the draw. A run by time explores afresh.
limit="-runs=3000 -seed=1"
case "${1:-}" in
  --runs) limit="-runs=$2 -seed=1"; shift 2 ;;
  --seconds) limit="-max_total_time=$2"; shift 2 ;;
esac
targets="${*:-key-decoder rule-file session check-record postal-codes message-catalog track-data chip-flow session-record}"
out=.build/fuzz
bin=$out/cardkit-fuzz
mkdir -p "$out"
if [ ! -x "$bin" ] || [ -n "$(find Sources/CardKit Sources/CardChip Tests/Fuzz -name '*.swift' -newer "$bin")" ]; then
  echo "fuzz: building $bin"
  # CardChip, which CardKit imports, first: a module of its own (one object), then CardKit's
  # sources and the harnesses as one module over it.
  ${SWIFTC:-swiftc} -sanitize=fuzzer,address -parse-as-library -O -wmo -module-name CardChip \
    -emit-module -emit-module-path "$out/CardChip.swiftmodule" -c $(find Sources/CardChip -name '*.swift' | sort) \
    -o "$out/CardChip.o"
  # Linked with the toolchain's lld: the default linker, gold, prints one warning per
  # AddressSanitizer helper symbol it cannot export (harmless, but noise in `make test`).
  ${SWIFTC:-swiftc} -sanitize=fuzzer,address -use-ld=lld -parse-as-library -O -module-name CardKitFuzz -I "$out" \
    $(find Sources/CardKit -name '*.swift' | sort) Tests/Fuzz/*.swift "$out/CardChip.o" -o "$bin"
fi
for target in $targets; do
  mkdir -p "$out/corpus-$target"
  log="$out/$target.log"
  # The Swift runtime's backtracer is off: libFuzzer and ASan report crashes themselves.
  # The speed is counted here, from the clock: libFuzzer's own rounds a run under a second to 0/s.
  start=$(date +%s%N)
  if SWIFT_BACKTRACE=enable=no CARDLINE_FUZZ_TARGET="$target" CARDLINE_FUZZ_RULES=rules "$bin" $limit -max_len=4096 -timeout=10 \
       -rss_limit_mb=2048 -artifact_prefix="$out/crash-$target-" -print_final_stats=1 \
       "$out/corpus-$target" "Tests/Fuzz/corpus/$target" >"$log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    speed=$(awk -v runs="${runs:-0}" -v ns=$(($(date +%s%N) - start)) 'BEGIN { printf "%d", runs * 1e9 / ns }')
    echo "fuzz $target: ${runs:-?} inputs, ${speed}/s, no finding"
  else
    echo "fuzz $target: FAILED (log: $log)"
    tail -40 "$log"
    exit 1
  fi
done
