#!/usr/bin/env bash
# Installs what scripts/bluetooth-vm-test.sh needs (Debian/Ubuntu), if missing: QEMU and a Debian
# kernel with Bluetooth modules, BlueZ (bluetoothd, btmgmt, btmon), its test tools (btvirt) and
# example scripts (example-gatt-server, example-advertisement) with their Python D-Bus bindings, a
# system D-Bus, a static busybox for virtme-ng's init, and virtme-ng itself from PyPI in a venv.
set -euo pipefail
packages=(qemu-system-x86 linux-image-amd64 bluez bluez-test-tools bluez-test-scripts python3-dbus python3-gi dbus
          busybox-static python3-venv)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2> /dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    echo "Installing ${missing[*]}" >&2
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi
venv=${OPENHEALTHKIT_VIRTME_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/openhealthkit/virtme-ng}
if [ ! -x "$venv/bin/vng" ]; then
    echo "Installing virtme-ng 1.42 into $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q "virtme-ng==1.42"
fi
