#!/usr/bin/env bash
# Installs the system libraries OpenHealthKit builds against (Debian/Ubuntu), if they are missing:
# SQLite for the store, BlueZ's libbluetooth and libudev for Bluetooth, umockdev for the udev tests.
set -euo pipefail
packages=(libsqlite3-dev libbluetooth-dev libudev-dev umockdev)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "Installing ${missing[*]}" >&2
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
