#!/usr/bin/env bash
# Builds and tests Examples/IntervalCoach, a downstream package that turns OpenHealthKit's `BlueZ` trait off, on a
# machine without BlueZ's development packages: removes libbluetooth-dev, libudev-dev and libsystemd-dev first
# (with sudo when not root), builds from a clean scratch folder, runs its tests (one of which checks that no
# Bluetooth, udev or systemd library is mapped into the test process), and checks with ldd that the test binary
# links none of them. `scripts/install-dependencies.sh` puts the packages back.
set -euo pipefail
cd "$(dirname "$0")/.."
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
installed=()
for package in libbluetooth-dev libudev-dev libsystemd-dev; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" && installed+=("$package")
done
if [ ${#installed[@]} -gt 0 ]; then
    echo "test-without-bluetooth: removing ${installed[*]}" >&2
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get remove -y -q "${installed[@]}" > /dev/null
fi
for header in /usr/include/bluetooth/bluetooth.h /usr/include/libudev.h /usr/include/systemd/sd-bus.h; do
    if [ -e "$header" ]; then echo "test-without-bluetooth: $header is still installed" >&2; exit 1; fi
done
cd Examples/IntervalCoach
scratch=.build-without-bluetooth
rm -rf "$scratch"
swift build --build-tests --scratch-path "$scratch"
swift test --skip-build --scratch-path "$scratch"
binary=$(find -L "$scratch/debug" -maxdepth 1 -name '*PackageTests.xctest' -type f | head -1)
if [ -z "$binary" ]; then echo "test-without-bluetooth: no test binary in $scratch/debug" >&2; exit 1; fi
linked=$(ldd "$binary" | grep -E 'libbluetooth|libudev|libsystemd' || true)
if [ -n "$linked" ]; then
    echo "test-without-bluetooth: $binary links what it must not:" >&2
    echo "$linked" >&2
    exit 1
fi
echo "test-without-bluetooth: built and tested without BlueZ's -dev packages; $(basename "$binary") links no Bluetooth, udev or systemd library" >&2
