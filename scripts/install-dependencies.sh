#!/usr/bin/env bash
# Installs the system libraries OpenHealthKit builds against (Debian/Ubuntu), if they are missing:
# SQLite for the store, BlueZ's libbluetooth and libudev for Bluetooth, libsystemd's sd-bus for bluetoothd's D-Bus API,
# umockdev for the udev tests, dbus (dbus-daemon) and python3-dbusmock for the D-Bus tests' private bus and fake bluetoothd,
# python3-venv for the FIT tests' independent decoders, chromium for the live view's tests in a real browser (`--serve`),
# postgresql for the PostgreSQL store's tests (they start a throwaway cluster of their own; the service is not used),
# zbar-tools for the QR code test (ZBar reads our symbols back).
# Then creates .build/fit-venv with Garmin's FIT SDK for Python and fitparse (the FIT tests' oracles), and python-qrcode
# (the QR code test's reference symbols).
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(libsqlite3-dev libbluetooth-dev libudev-dev libsystemd-dev umockdev dbus python3-dbus python3-dbusmock python3-venv chromium postgresql zbar-tools)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    echo "Installing ${missing[*]}" >&2
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi

# The FIT tests compare FITFile with independent implementations (Tests/FITFileTests/Oracle/fit_oracle.py).
venv=.build/fit-venv
fit_packages=(garmin-fit-sdk==21.218.0 fitparse==1.2.0 qrcode==8.2)
if ! "$venv/bin/python" -c "import garmin_fit_sdk, fitparse, qrcode" 2>/dev/null; then
    echo "Creating $venv with ${fit_packages[*]}" >&2
    mkdir -p .build
    /usr/bin/python3 -m venv "$venv" 2>/dev/null || python3 -m venv "$venv"
    "$venv/bin/pip" install -q "${fit_packages[@]}"
fi
