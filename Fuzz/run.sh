#!/usr/bin/env bash
# Builds the libFuzzer targets (swiftc -sanitize=fuzzer) for the ATT decoder, the HCI event decoder,
# each GATT profile decoder, the FIT file decoder and the controller-information decoders (Local Supported
# Commands, management replies), and runs each for RUNS executions (default 1,000,000).
#
#   Fuzz/run.sh                 build and run every target
#   RUNS=10000000 Fuzz/run.sh   longer runs
#   SEED=1 Fuzz/run.sh          the same inputs every time (CI: a fixed budget that fails only on a real finding)
#   Fuzz/run.sh att             one target (names below)
#
# Crashes are written to .build/fuzz/artifacts/<target>/; corpora grow in .build/fuzz/corpus/<target>/.
# These never run in `swift test`.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-1000000}
# Let a Swift trap reach libFuzzer, which writes the crashing input; the Swift runtime's backtracer would stop first.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}
OUT=.build/fuzz
mkdir -p "$OUT"

# The pure modules, instrumented for coverage, as static libraries (with a package name, as SwiftPM builds them, for
# their `package` declarations).
if [ ! -f "$OUT/libBluetoothLE.a" ] || [ -n "$(find Sources/ByteCoding Sources/FitnessSensors Sources/BluetoothLE -newer "$OUT/libBluetoothLE.a" -name '*.swift' | head -1)" ]; then
    echo "building instrumented ByteCoding, FitnessSensors and BluetoothLE" >&2
    swiftc -module-name ByteCoding -package-name OpenHealthKit -parse-as-library -emit-module -emit-library -static -O -sanitize=fuzzer \
        -emit-module-path "$OUT/ByteCoding.swiftmodule" -o "$OUT/libByteCoding.a" \
        $(find Sources/ByteCoding -name '*.swift')
    swiftc -module-name FitnessSensors -package-name OpenHealthKit -parse-as-library -emit-module -emit-library -static -O -sanitize=fuzzer -I "$OUT" \
        -emit-module-path "$OUT/FitnessSensors.swiftmodule" -o "$OUT/libFitnessSensors.a" \
        $(find Sources/FitnessSensors -name '*.swift')
    swiftc -module-name BluetoothLE -package-name OpenHealthKit -parse-as-library -emit-module -emit-library -static -O -sanitize=fuzzer -I "$OUT" \
        -emit-module-path "$OUT/BluetoothLE.swiftmodule" -o "$OUT/libBluetoothLE.a" \
        $(find Sources/BluetoothLE -name '*.swift')
fi
if [ ! -f "$OUT/libFITFile.a" ] || [ -n "$(find Sources/ByteCoding Sources/FITFile -newer "$OUT/libFITFile.a" -name '*.swift' | head -1)" ]; then
    echo "building instrumented FITFile" >&2
    swiftc -module-name FITFile -package-name OpenHealthKit -parse-as-library -emit-module -emit-library -static -O -sanitize=fuzzer -I "$OUT" \
        -emit-module-path "$OUT/FITFile.swiftmodule" -o "$OUT/libFITFile.a" \
        $(find Sources/FITFile -name '*.swift')
fi

profiles=(heart-rate-measurement cycling-power-measurement csc-measurement battery-level body-sensor-location
          sensor-location cycling-power-feature csc-feature device-information rsc-measurement indoor-bike-data
          treadmill-data rower-data cross-trainer-data supported-power-range fitness-machine-status
          control-point-response training-status)
all=(att hci-event controller-information fit "${profiles[@]}")
targets=("${@:-${all[@]}}")

for target in "${targets[@]}"; do
    case "$target" in
        att) sources=(Fuzz/ATTPDUFuzz.swift); flags=() ;;
        hci-event) sources=(Fuzz/HCIEventFuzz.swift); flags=() ;;
        controller-information) sources=(Fuzz/ControllerInformationFuzz.swift); flags=() ;;
        fit) sources=(Fuzz/FITFuzz.swift); flags=() ;;
        *) sources=(Fuzz/ProfileFuzz.swift); flags=(-D "FUZZ_$(echo "$target" | tr 'a-z-' 'A-Z_')") ;;
    esac
    binary="$OUT/fuzz-$target"
    swiftc -parse-as-library -O -sanitize=fuzzer -I "$OUT" -L "$OUT" -lBluetoothLE -lFitnessSensors -lFITFile -lByteCoding \
        ${flags[@]+"${flags[@]}"} "${sources[@]}" -o "$binary"
    mkdir -p "$OUT/corpus/$target" "$OUT/artifacts/$target"
    if [ -d "Fuzz/seeds/$target" ]; then cp -n Fuzz/seeds/$target/* "$OUT/corpus/$target/"; fi
    echo "== $target: $RUNS runs" >&2
    "$binary" -runs="$RUNS" ${SEED:+-seed="$SEED"} -max_len=600 -artifact_prefix="$OUT/artifacts/$target/" -print_final_stats=1 \
        "$OUT/corpus/$target" 2>&1 | grep -E "^(Done|stat::number_of_executed_units|stat::average_exec_per_sec|#[0-9]+ *DONE)|ERROR|SUMMARY|cov:" | tail -4
done
