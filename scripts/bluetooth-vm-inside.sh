#!/usr/bin/env bash
# Runs inside the VM that scripts/bluetooth-vm-test.sh boots (as root, over this machine's own root
# filesystem): BlueZ's virtual controllers, bluetoothd, BlueZ's example heart-rate GATT server
# advertising on hci0, and the freshly built `workout` on hci1. Prints PASS/FAIL lines; exits 1 if
# any check failed.
#
#   scripts/bluetooth-vm-inside.sh WORKOUT LOGS [--bond]
set -u
workout=$1
logs=$2
bond=${3:-}
latency=$(dirname "$workout")/BluetoothLatency
scripts=$(dirname "$0")
examples=/usr/share/doc/bluez-test-scripts/examples
store=/dev/shm/vm-test.sqlite   # SQLite's WAL needs a real file system, not the shared folder
failures=0

pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
# wait_for SECONDS COMMAND...: polls COMMAND every 0.2 s until it succeeds or time runs out.
wait_for() {
    local limit=$(($1 * 5)) tries=0
    shift
    until "$@" > /dev/null 2>&1; do
        tries=$((tries + 1))
        [ "$tries" -ge "$limit" ] && return 1
        sleep 0.2
    done
}
controller_address() { timeout 10 btmgmt --index "$1" info | awk '/addr /{print $2; exit}'; }
finish() {
    echo "$failures" > "$logs/failures"
    exit $((failures > 0))
}
# The test bench itself did not come up (btvirt, bluetoothd, BlueZ's example scripts under QEMU
# without KVM): no check of workout ran. The host script boots a fresh VM once for this.
setup_failed() {
    echo "SETUP FAILED $*"
    echo setup > "$logs/failures"
    exit 3
}

# 1. Two LE controllers on /dev/vhci, backed by BlueZ's controller emulator, both through their setup: the kernel's
# management interface gives each its address. Under QEMU without KVM on a busy host, btvirt can answer the kernel's
# first HCI Reset after its timeout ("hci0: Opcode 0x0c03 failed: -110"), and that controller then never joins the
# management interface: btvirt is started again, with new controllers, up to three times.
modprobe hci_vhci
controller_ready() {
    local address
    address=$(controller_address "$1")
    [ -n "$address" ] && [ "$address" != 00:00:00:00:00:00 ]
}
no_controllers() { ! ls /sys/class/bluetooth/hci0 /sys/class/bluetooth/hci1 > /dev/null 2>&1; }
controllers=
for attempt in 1 2 3; do
    btvirt -l2 >> "$logs/btvirt.log" 2>&1 &
    btvirt_pid=$!
    if wait_for 30 test -e /sys/class/bluetooth/hci1 && wait_for 20 controller_ready 0 \
        && wait_for 20 controller_ready 1; then
        controllers=ready
        break
    fi
    echo "btvirt's controllers did not finish their setup (attempt $attempt); starting it again"
    kill "$btvirt_pid" 2> /dev/null
    wait "$btvirt_pid" 2> /dev/null
    wait_for 10 no_controllers
done
[ -n "$controllers" ] || setup_failed "both controllers finished their setup"

# 2. A system bus and bluetoothd, which powers the controllers and serves the GATT application.
mkdir -p /run/dbus
dbus-daemon --system --fork --nopidfile
# bluetoothd has registered both adapters on D-Bus (where the example scripts look for one).
bluez_has_both_adapters() {
    local count
    count=$(dbus-send --system --print-reply --dest=org.bluez / org.freedesktop.DBus.ObjectManager.GetManagedObjects \
        2> /dev/null | grep -c 'object path "/org/bluez/hci[0-9]*"')
    [ "$count" -ge 2 ]
}
# bluetoothd keeps bonds under /var/lib/bluetooth, which is this machine's (read-only in the VM): a writable one of
# the VM's own, as a real machine has (bluetoothd 5.66 dies storing a new bond's keys where it cannot write them).
mount -t tmpfs -o mode=0700 tmpfs /var/lib/bluetooth || setup_failed "a writable /var/lib/bluetooth"
start_bluetoothd() {
    /usr/libexec/bluetooth/bluetoothd -n -E >> "$logs/bluetoothd.log" 2>&1 &
    bluetoothd=$!
    wait_for 30 bluez_has_both_adapters
}
# Under QEMU without KVM, bluetoothd now and then registers only one of two fresh controllers; a
# restart picks up both (the harness's race, not workout's).
if ! start_bluetoothd; then
    echo "bluetoothd registered fewer than two adapters; restarting it"
    kill "$bluetoothd"; wait "$bluetoothd" 2> /dev/null
    start_bluetoothd || setup_failed "bluetoothd took both controllers"
fi

# 3. Both powered with LE on (again after bluetoothd stops or restarts, which powers them off).
power_both() {
    for index in 0 1; do
        btmgmt --index "$index" power on > /dev/null
        btmgmt --index "$index" le on > /dev/null
    done
}
power_both
# stop_bluetoothd: SIGTERM, bounded: a bluetoothd that does not act on it within 5 s is killed.
stop_bluetoothd() {
    kill "$bluetoothd"
    for _ in $(seq 25); do kill -0 "$bluetoothd" 2> /dev/null || break; sleep 0.2; done
    kill -9 "$bluetoothd" 2> /dev/null
    wait "$bluetoothd" 2> /dev/null
}
peripheral=$(controller_address 0)
central=$(controller_address 1)
echo "peripheral (hci0) $peripheral, workout (hci1) $central"

# 4. BlueZ's example heart-rate GATT server and advertisement, on hci0 (the first adapter bluetoothd lists).
# Every line it prints is stamped with the time it printed it: its notifications, for the latency measure.
start_gatt_server() {
    python3 -u -c 'import builtins, runpy, sys, time
plain = builtins.print
builtins.print = lambda *values, **options: plain(f"{time.time():.6f}", *values, **options)
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")' "${gatt_server_script:-$examples/example-gatt-server}" \
        >> "$logs/gatt-server.log" 2>&1 &
    gatt_server=$!
    wait_for 30 registered_since "$(grep -c "GATT application registered" "$logs/gatt-server.log")"
}
# registered_since COUNT: the log has more than COUNT registrations (this start's, not an earlier one's).
registered_since() { [ "$(grep -c "GATT application registered" "$logs/gatt-server.log")" -gt "$1" ]; }
start_gatt_server || setup_failed "the GATT server registered"
# The advertisement is BlueZ's example's (its class, run without its main); SIGUSR1 registers it again, as a real
# sensor's next advertising event (btvirt reports an advertiser only when advertising or scanning is enabled).
start_advertising() {
    : > "$logs/advertisement.log"
    python3 -u -c 'import dbus, dbus.mainloop.glib, runpy, signal, sys
from gi.repository import GLib
example = runpy.run_path(sys.argv[1])
dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SystemBus()
manager = dbus.Interface(bus.get_object("org.bluez", example["find_adapter"](bus)), "org.bluez.LEAdvertisingManager1")
advertisement = example["TestAdvertisement"](bus, 0)
def failed(error):
    print("Advertisement not registered: " + str(error))
def register(*ignored):
    manager.RegisterAdvertisement(advertisement.get_path(), {},
        reply_handler=lambda: print("Advertisement registered"), error_handler=failed)
def again():
    manager.UnregisterAdvertisement(advertisement.get_path(), reply_handler=register, error_handler=register)
    return True
register()
GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1, again)
GLib.MainLoop().run()' "$examples/example-advertisement" >> "$logs/advertisement.log" 2>&1 &
    advertiser=$!
    wait_for 30 grep -q "Advertisement registered" "$logs/advertisement.log"
}
start_advertising || setup_failed "the advertisement registered"
# stop_server / start_server: the GATT server (${gatt_server_script:-the example}) and the advertisement.
stop_server() {
    kill "$advertiser" "$gatt_server"
    wait "$advertiser" "$gatt_server" 2> /dev/null
}
start_server() {
    start_gatt_server || fail "the GATT server registered again"
    start_advertising || fail "the advertisement registered again"
}
# lose_link: the link drops as when a strap leaves range: hci0 powered off (which also removes its advertising
# instance) with the server stopped, then after 3 s powered on with the server started again.
lose_link() {
    btmgmt --index 0 power off > /dev/null
    stop_server
    sleep 3
    btmgmt --index 0 power on > /dev/null
    start_server
}
btmon -w "$logs/hci.btsnoop" > /dev/null 2>&1 &
sleep 1

# --- The raw path beside bluetoothd (forced): the checks it has always had ----------------------------
export OPENHEALTHKIT_BLUETOOTH=raw

# doctor: a working setup.
"$workout" doctor --store "$store" > "$logs/doctor.txt" 2>&1
status=$?
cat "$logs/doctor.txt"
if [ "$status" -eq 0 ] && grep -q "^Recording can work.$" "$logs/doctor.txt" && ! grep -q "✘ Kernel\|✘ hci1" "$logs/doctor.txt"; then
    pass "workout doctor reports a working setup (exit 0)"
else
    fail "workout doctor reports a working setup (exit $status)"
fi
installed=$(bluetoothctl --version 2> /dev/null | awk '{print $NF}')
if [ -n "$installed" ] && grep -q "^✔ BlueZ's version: BlueZ $installed" "$logs/doctor.txt"; then
    pass "workout doctor reports BlueZ's version ($installed)"
else
    fail "workout doctor reports BlueZ's version (bluetoothctl says '$installed')"
fi

# scan: the advertiser is heard with its name and services (extended reports on a 5.x controller).
"$workout" scan --adapter hci1 --timeout 5 > "$logs/scan.txt" 2>&1
status=$?
cat "$logs/scan.txt"
if [ "$status" -eq 0 ] && grep -E "^TestAdvertisement +$peripheral .*0x180D" "$logs/scan.txt" > /dev/null; then
    pass "workout scan hears TestAdvertisement at $peripheral with service 0x180D"
else
    fail "workout scan hears TestAdvertisement at $peripheral with service 0x180D (exit $status)"
fi

# record, with a link loss in the middle: hci0 powered off (the link drops, as when a strap leaves
# range), the GATT server and the advertisement restarted (powering off removes the advertising
# instance), hci0 powered on again: the sensor must reconnect and subscribe again by itself.
"$workout" record --store "$store" --activity running --sensor "ble:$peripheral" --duration 45 \
    --save-fixture /dev/shm/vm-test.jsonl > "$logs/record.txt" 2>&1 &
recorder=$!
# The fixture is written at the end; the GATT server logs each value it notifies once subscribed.
notified_since_start() { [ "$(grep -c "Updating value" "$logs/gatt-server.log")" -ge "$1" ]; }
if wait_for 60 notified_since_start 5; then
    pass "the GATT server notified five heart rates to workout before the link loss"
else
    fail "the GATT server notified five heart rates to workout before the link loss"
fi
lose_link
wait "$recorder"
status=$?
cat "$logs/record.txt"
cp /dev/shm/vm-test.jsonl "$logs/record.jsonl" 2> /dev/null
[ "$status" -eq 0 ] && pass "workout record saved the workout" || fail "workout record saved the workout (exit $status)"
workout_id=$("$workout" list --store "$store" | awk 'NR == 2 {print $1}')
"$workout" show "$workout_id" --store "$store" --json > "$logs/show.json" 2> "$logs/show.err"
# The workout keeps its sensor with the battery level BlueZ's example server reports (its Battery
# Service, read on connecting and notified as it drains).
"$workout" show "$workout_id" --store "$store" > "$logs/show.txt" 2>&1
cat "$logs/show.txt"
if grep -Eq "^  sensors .*battery [0-9]+ %" "$logs/show.txt"; then
    pass "the saved workout keeps the sensor and its battery level"
else
    fail "the saved workout keeps the sensor and its battery level"
fi

# What was notified, received and stored: every heart rate in the fixture was logged by the GATT
# server, readings resumed after the reconnection, and the store holds one sample per notification.
python3 - "$logs/record.jsonl" "$logs/gatt-server.log" "$logs/show.json" <<'PY'
import json, re, sys
fixture, server_log, shown = sys.argv[1:4]
events = [json.loads(line) for line in open(fixture).read().splitlines()[1:] if line.strip()]
beats = [e for e in events if e.get("c") == "2A37"]
notified = [int(m.group(1)) for m in re.finditer(r"Updating value: \[dbus\.Byte\(\d+\), dbus\.Byte\((\d+)\)", open(server_log).read())]
received = [int(bytes.fromhex(e["v"])[1]) for e in beats]
changes = [(e["t"], e["connection"]) for e in events if "connection" in e]
drop = next((t for t, c in changes if c == "disconnected"), None)
back = next((t for t, c in changes if c == "connected" and drop is not None and t > drop), None)
after = [e for e in beats if back is not None and e["t"] > back]
try:
    stored = json.load(open(shown))["statistics"]["HeartRate"]
except Exception as error:
    stored = {"error": repr(error)}
checks = [
    (len(received) >= 10 and all(v in notified for v in received),
     f"{len(received)} heart rates received, each one the GATT server notified ({len(notified)} notified)"),
    (drop is not None and back is not None, f"the link loss and the reconnection were seen: {changes}"),
    (len(after) >= 3, f"{len(after)} heart rates arrived after the reconnection"),
    (bool(received) and stored.get("minimum") == min(received) and stored.get("maximum") == max(received),
     f"the store's heart rate (minimum, maximum) {stored.get('minimum')}, {stored.get('maximum')} is the received "
     f"{min(received) if received else None}, {max(received) if received else None} ({len(received)} notifications)"),
]
failed = 0
for ok, what in checks:
    print(("PASS " if ok else "FAIL ") + what)
    failed += not ok
sys.exit(1 if failed else 0)
PY
[ $? -eq 0 ] || failures=$((failures + 1))

# pair (a probe over L2CAP), then a recording from the paired sensor that holds the link: doctor must
# name the sensor as held, and a second connection to it must fail with the EBUSY sentence.
"$workout" pair "$peripheral" --store "$store" > "$logs/pair.txt" 2>&1
status=$?
cat "$logs/pair.txt"
if [ "$status" -eq 0 ] && grep -q "^Paired .*(ble:$peripheral): heart rate" "$logs/pair.txt"; then
    pass "workout pair probed the sensor over L2CAP"
else
    fail "workout pair probed the sensor over L2CAP (exit $status)"
fi
before=$(grep -c "Updating value" "$logs/gatt-server.log")
# (through hci1 by name: OPENHEALTHKIT_ADAPTER reaches the connections OpenHealthKit makes for paired sensors)
OPENHEALTHKIT_ADAPTER=hci1 "$workout" record --store "$store" --activity running --duration 30 \
    > "$logs/record-paired.txt" 2>&1 &
holder=$!
wait_for 60 notified_since_start $((before + 3)) || fail "the paired sensor notified workout"
"$workout" doctor --store "$store" > "$logs/doctor-held.txt" 2>&1
status=$?
cat "$logs/doctor-held.txt"
if [ "$status" -eq 1 ] && grep -q "^✘ ble:$peripheral is free: another program holds a connection to it" "$logs/doctor-held.txt"; then
    pass "workout doctor names the paired sensor another connection holds (exit 1)"
else
    fail "workout doctor names the paired sensor another connection holds (exit $status)"
fi
"$workout" record --store /dev/shm/vm-test-second.sqlite --activity running --sensor "ble:$peripheral" --duration 6 \
    --keep-empty --save-fixture /dev/shm/vm-test-busy.jsonl > "$logs/record-busy.txt" 2>&1
cat "$logs/record-busy.txt"
cp /dev/shm/vm-test-busy.jsonl "$logs/record-busy.jsonl" 2> /dev/null
# The reason of each disconnection is in the fixture's connection events.
if grep -q "$peripheral is busy (Device or resource busy): another program holds a connection to it" "$logs/record-busy.jsonl"; then
    pass "a second connection to a held sensor is refused with the EBUSY sentence"
else
    fail "a second connection to a held sensor is refused with the EBUSY sentence"
fi
wait "$holder" && pass "the recording that held the link saved its workout" \
    || fail "the recording that held the link saved its workout"
# --- bluetoothd's D-Bus API, the default where it runs, as an unprivileged user -----------------------
# nobody, in the bluetooth group, with no capability at all: what a desktop user or a Pi's default user has.
unset OPENHEALTHKIT_BLUETOOTH
bluetooth_group=$(getent group bluetooth | cut -d: -f3)
as_user() { setpriv --reuid=65534 --regid=65534 --groups="${bluetooth_group:-65534}" --inh-caps=-all --bounding-set=-all "$@"; }
dbus_store=/dev/shm/vm-test-dbus.sqlite
as_user "$workout" doctor --store "$dbus_store" > "$logs/doctor-dbus.txt" 2>&1
status=$?
cat "$logs/doctor-dbus.txt"
if [ "$status" -eq 0 ] && grep -q "^✔ Bluetooth path: bluetoothd's D-Bus API (bluetoothd owns org.bluez on the system bus)" "$logs/doctor-dbus.txt" \
    && grep -q "^✔ This binary can scan without bluetoothd: not needed" "$logs/doctor-dbus.txt"; then
    pass "as an unprivileged user, workout doctor says the path is bluetoothd's D-Bus API and scanning needs no capability"
else
    fail "as an unprivileged user, workout doctor says the path is bluetoothd's D-Bus API and scanning needs no capability (exit $status)"
fi
# readvertise PID [COMMAND…]: registers the advertisement again every second while PID runs (and, given a command,
# until it succeeds).
readvertise() {
    local pid=$1
    shift
    while kill -0 "$pid" 2> /dev/null; do
        if [ $# -gt 0 ] && "$@"; then break; fi
        sleep 1
        kill -USR1 "$advertiser" 2> /dev/null
    done
}
# scan_dbus OUT ARGS…: `workout scan ARGS…` as the unprivileged user, into OUT; its exit status in $status.
# btvirt reports an advertiser to a scanner only when one of them enables (a real sensor advertises again every
# 0.1-1 s), and the kernel drops a report that comes before its discovery is under way, which through bluetoothd
# (one discovery, never restarted) can be the only one: the advertisement is registered again every second while
# workout scans, as a real sensor advertises again and again. (Once 2 s in was not enough: on a loaded bench workout
# started its discovery after that, and restarting the example took 6.6 s.)
scan_dbus() {
    local out=$1
    shift
    as_user "$workout" scan "$@" > "$out" 2>&1 &
    local scanner=$!
    readvertise "$scanner"
    wait "$scanner"
    status=$?
    cat "$out"
}
scan_dbus "$logs/scan-dbus.txt" --adapter hci1 --timeout 5
if [ "$status" -eq 0 ] && grep -E "^TestAdvertisement +$peripheral .*0x180D" "$logs/scan-dbus.txt" > /dev/null; then
    pass "as an unprivileged user, workout scan hears TestAdvertisement through bluetoothd"
else
    fail "as an unprivileged user, workout scan hears TestAdvertisement through bluetoothd (exit $status)"
fi
# Without --adapter (nor OPENHEALTHKIT_ADAPTER), both of the VM's adapters listen and the list says which heard the
# strap: hci1 (hci0 is the strap's own).
scan_dbus "$logs/scan-dbus-every.txt" --timeout 5
if [ "$status" -eq 0 ] && grep -E "^TestAdvertisement +$peripheral .* hci1[ ,].*0x180D" "$logs/scan-dbus-every.txt" > /dev/null; then
    pass "as an unprivileged user, workout scan without --adapter listens with both adapters and says hci1 heard the strap"
else
    fail "as an unprivileged user, workout scan without --adapter listens with both adapters and says hci1 heard the strap (exit $status)"
fi
# bluetoothd holds the link (what `bluetoothctl connect` asks of it: Device1.Connect, here on hci1), and workout
# simply uses it.
device_path=/org/bluez/hci1/dev_${peripheral//:/_}
# forget_each_other: bluetoothd forgets the strap on hci1 and workout's controller on hci0 (bond, trust, cache).
forget_each_other() {
    timeout 10 dbus-send --system --print-reply --dest=org.bluez /org/bluez/hci1 org.bluez.Adapter1.RemoveDevice \
        "objpath:$device_path" > /dev/null 2>&1
    timeout 10 dbus-send --system --print-reply --dest=org.bluez /org/bluez/hci0 org.bluez.Adapter1.RemoveDevice \
        "objpath:/org/bluez/hci0/dev_${central//:/_}" > /dev/null 2>&1
}
timeout 30 dbus-send --system --print-reply --dest=org.bluez "$device_path" org.bluez.Device1.Connect \
    > "$logs/bluetoothd-connect.txt" 2>&1
held_by_bluetoothd() {
    timeout 5 dbus-send --system --print-reply --dest=org.bluez "$device_path" org.freedesktop.DBus.Properties.Get \
        string:org.bluez.Device1 string:Connected | grep -q "boolean true"
}
wait_for 10 held_by_bluetoothd || fail "bluetoothd connected hci1 to the sensor (see bluetoothd-connect.txt)"
before=$(grep -c "Updating value" "$logs/gatt-server.log")
OPENHEALTHKIT_ADAPTER=hci1 as_user "$workout" record --store "$dbus_store" --activity running --sensor "ble:$peripheral" --duration 15 \
    --save-fixture /dev/shm/vm-test-dbus.jsonl > "$logs/record-dbus.txt" 2>&1
status=$?
cat "$logs/record-dbus.txt"
cp /dev/shm/vm-test-dbus.jsonl "$logs/record-dbus.jsonl" 2> /dev/null
received=$(grep -c '"c":"2A37"' "$logs/record-dbus.jsonl" 2> /dev/null || echo 0)
notified=$(($(grep -c "Updating value" "$logs/gatt-server.log") - before))
if [ "$status" -eq 0 ] && [ "$received" -ge 5 ]; then
    pass "as an unprivileged user, workout record read $received heart rates through bluetoothd from the link it held ($notified notified meanwhile)"
else
    fail "as an unprivileged user, workout record read heart rates through bluetoothd from the link it held (exit $status, $received received, $notified notified)"
fi
held_by_bluetoothd && pass "the link bluetoothd held is still up after workout's recording" \
    || fail "the link bluetoothd held is still up after workout's recording"
timeout 10 dbus-send --system --print-reply --dest=org.bluez "$device_path" org.bluez.Device1.Disconnect \
    > /dev/null 2>&1
# check_reconnected FIXTURE STATUS REASON BEFORE WHAT: the recording (exit STATUS) saw its link end (with REASON in
# the reason, when not empty) after at least BEFORE heart rates, connected again, and had three or more after it.
check_reconnected() {
    python3 - "$@" <<'PY'
import json, sys
fixture, status, wanted, needed, what = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
events = [json.loads(line) for line in open(fixture).read().splitlines()[1:] if line.strip()]
changes = [(e["t"], e["connection"], e.get("reason", "")) for e in events if "connection" in e]
drop = next((t for t, c, r in changes if c == "disconnected" and wanted in r), None)
back = next((t for t, c, _ in changes if c == "connected" and drop is not None and t > drop), None)
before = [e for e in events if e.get("c") == "2A37" and drop is not None and e["t"] < drop]
after = [e for e in events if e.get("c") == "2A37" and back is not None and e["t"] > back]
ok = status == "0" and drop is not None and back is not None and len(before) >= needed and len(after) >= 3
print(("PASS " if ok else "FAIL ") + f"{what}: {changes}, {len(before)} heart rates before and {len(after)} after "
      f"(exit {status})")
sys.exit(0 if ok else 1)
PY
    [ $? -eq 0 ] || failures=$((failures + 1))
}
# A link loss through bluetoothd: hci0 powered off mid-recording (as the raw check above does), then back with
# its server and advertisement; the sensor must see bluetoothd report the drop, and connect and subscribe again.
OPENHEALTHKIT_ADAPTER=hci1 as_user "$workout" record --store "$dbus_store" --activity running --sensor "ble:$peripheral" \
    --duration 40 --save-fixture /dev/shm/vm-test-dbus-loss.jsonl > "$logs/record-dbus-loss.txt" 2>&1 &
recorder=$!
before=$(grep -c "Updating value" "$logs/gatt-server.log")
wait_for 60 notified_since_start $((before + 5)) || echo "(fewer than five notifications before the link loss)"
lose_link
wait "$recorder"
status=$?
cat "$logs/record-dbus-loss.txt"
# It made the link itself, so it disconnected it before exiting (bluetoothd holds nothing of it afterwards).
held_by_bluetoothd && fail "the link workout made through bluetoothd is disconnected when the recording ends" \
    || pass "the link workout made through bluetoothd is disconnected when the recording ends"
cp /dev/shm/vm-test-dbus-loss.jsonl "$logs/record-dbus-loss.jsonl" 2> /dev/null
check_reconnected "$logs/record-dbus-loss.jsonl" "$status" "" 0 \
    "through bluetoothd, a link loss is reported and the sensor reconnects by itself"

# bluetoothd restarted mid-recording (as `systemctl restart bluetooth` or a package upgrade does): the recording hears
# it leave the bus and says so, and once the new bluetoothd has its adapters, the strap's server and its
# advertisement again (a restarted service's own clients register again as these do), it finds the strap, connects
# and subscribes again by itself, and saves the workout.
restart_bluetoothd() {
    stop_server
    stop_bluetoothd
    start_bluetoothd || { echo "bluetoothd did not register both adapters after its restart"; return 1; }
    power_both
    start_server
}
OPENHEALTHKIT_ADAPTER=hci1 as_user "$workout" record --store "$dbus_store" --activity running --sensor "ble:$peripheral" \
    --duration 60 --save-fixture /dev/shm/vm-test-dbus-restart.jsonl > "$logs/record-dbus-restart.txt" 2>&1 &
recorder=$!
before=$(grep -c "Updating value" "$logs/gatt-server.log")
wait_for 60 notified_since_start $((before + 5)) || echo "(fewer than five notifications before bluetoothd's restart)"
restart_bluetoothd
# The strap advertises again and again, as a real one does, while the recording looks for it.
readvertise "$recorder"
wait "$recorder"
status=$?
cat "$logs/record-dbus-restart.txt"
cp /dev/shm/vm-test-dbus-restart.jsonl "$logs/record-dbus-restart.jsonl" 2> /dev/null
check_reconnected "$logs/record-dbus-restart.jsonl" "$status" bluetoothd 3 \
    "through bluetoothd, a recording hears bluetoothd restart, says so, and connects again once it is back"

# --- Latency: the same server through bluetoothd and through the raw path, side by side -------------------
# BluetoothLatency stamps each heart rate as the builder's delegate hears it, the server's log each notification as
# it sends it; bluetooth-latency.py pairs them: none lost, and the latency's p50 and p99 (a debug build, under QEMU
# without KVM: upper bounds of what a real machine sees).
OPENHEALTHKIT_ADAPTER=hci1 as_user "$latency" "ble:$peripheral" 30 > "$logs/latency-dbus.txt" 2> "$logs/latency-dbus.err"
timeout 10 dbus-send --system --print-reply --dest=org.bluez "$device_path" org.bluez.Device1.Disconnect \
    > /dev/null 2>&1
wait_for 10 bash -c "! timeout 5 dbus-send --system --print-reply --dest=org.bluez $device_path \
    org.freedesktop.DBus.Properties.Get string:org.bluez.Device1 string:Connected | grep -q 'boolean true'"
# A recording that ends while its Connect waits for an absent strap (hci0 powered off with its server stopped, as
# lose_link does, the device still known to bluetoothd): it must exit at once and cancel the attempt, so that when
# the strap is back 3 s after the recording ended, bluetoothd does not connect it and hold it (before, it did, and
# kept it). Its lines are stamped as they come: the time from its first line to its exit is --duration and the
# release, not QEMU's start-up.
# Only with --pending-connect (not in CI): bluetoothd 5.66 on this bench failed the pairing after it in one run of two
# ("disconnected while its services were resolved, three times"), even with both adapters forgetting each other.
if [ "$bond" != --pending-connect ]; then
    echo "(the pending-Connect check runs with scripts/bluetooth-vm-test.sh --pending-connect)"
elif timeout 5 dbus-send --system --print-reply --dest=org.bluez "$device_path" org.freedesktop.DBus.Properties.Get \
    string:org.bluez.Device1 string:Address > /dev/null 2>&1; then
    btmgmt --index 0 power off > /dev/null
    stop_server
    (
        OPENHEALTHKIT_ADAPTER=hci1 as_user "$workout" record --store "$dbus_store" --activity running \
            --sensor "ble:$peripheral" --duration 5 2>&1 | while IFS= read -r line; do echo "$(date +%s.%N) $line"; done
        echo "$(date +%s.%N) (exit ${PIPESTATUS[0]})"
    ) > "$logs/record-dbus-absent.txt" &
    recorder=$!
    sleep 8
    btmgmt --index 0 power on > /dev/null
    start_server
    wait "$recorder"
    cat "$logs/record-dbus-absent.txt"
    took=$(awk 'NR == 1 { first = $1 } END { printf "%.1f", $1 - first }' "$logs/record-dbus-absent.txt")
    sleep 10
    if held_by_bluetoothd; then
        fail "a recording that ended during a pending Connect leaves nothing held once the strap returns (held 10 s after it came back; the recording took $took s)"
    elif awk -v took="$took" 'BEGIN { exit !(took >= 8) }'; then
        fail "a recording that ended during a pending Connect exits at once ($took s from its first line for --duration 5)"
    else
        pass "a recording that ended during a pending Connect exits at once ($took s from its first line for --duration 5) and leaves nothing held once the strap returns"
    fi
    # Both sides forget each other (bluetoothd 5.66, after an attempt cancelled while pending and the sensor's
    # adapter powered off and on, failed the pairing below with links that dropped as their services resolved).
    forget_each_other
else
    fail "bluetoothd still knows the sensor after the latency run (the pending-Connect check needs it)"
fi
# Pairing, before the raw path's run: bluetoothd 5.66 loses track of a link made beside it through the kernel's
# sockets (its log says "No matching connection for device" as that link ends, "already connected" at its next one),
# and a pairing through it just after one fails. It bonds where the sensor needs it (BlueZ's example server's heart
# rate does not).
# The links made beside bluetoothd earlier (the raw path's, at the start) leave it believing on this bench that the
# strap is still connected (its log: "No matching connection for device" as such a link ends, "already connected" at
# the next), and a pairing through it then failed in about a third of the runs ("disconnected while its services
# were resolved, three times", with no link lost in btmon's capture). So both sides first forget each other, as a
# person pairing a new strap starts, and workout pair discovers the strap (re-advertised until bluetoothd knows it).
# Should it fail that way still, pairing is tried once more and the first attempt's output is kept
# (pair-dbus-first.txt) and said; what bluetoothd said and was asked meanwhile is in pair-dbus-monitor.txt.
known_to_bluetoothd() {
    timeout 5 dbus-send --system --print-reply --dest=org.bluez "$device_path" org.freedesktop.DBus.Properties.Get \
        string:org.bluez.Device1 string:Address > /dev/null 2>&1
}
pair_dbus() {
    as_user "$workout" pair "$peripheral" --adapter hci1 --store "$dbus_store" --timeout 20 > "$1" 2>&1 &
    local pairer=$!
    readvertise "$pairer" known_to_bluetoothd
    wait "$pairer"
    status=$?
}
forget_each_other
dbus-monitor --system "sender=org.bluez" "destination=org.bluez" > "$logs/pair-dbus-monitor.txt" 2>&1 &
monitor=$!
pair_dbus "$logs/pair-dbus.txt"
if [ "$status" -ne 0 ] && grep -q "disconnected while its services were resolved" "$logs/pair-dbus.txt"; then
    mv "$logs/pair-dbus.txt" "$logs/pair-dbus-first.txt"
    echo "(the first pairing attempt failed: $(tail -1 "$logs/pair-dbus-first.txt"); both sides forget each other, then a second)"
    forget_each_other
    sleep 3
    pair_dbus "$logs/pair-dbus.txt"
fi
kill "$monitor" 2> /dev/null
wait "$monitor" 2> /dev/null
cat "$logs/pair-dbus.txt"
if [ "$status" -eq 0 ] && grep -q "^bluetoothd: .*trusted" "$logs/pair-dbus.txt" \
    && grep -q "^Paired .*(ble:$peripheral): heart rate" "$logs/pair-dbus.txt"; then
    pass "as an unprivileged user, workout pair pairs through bluetoothd with its own agent (no dialog) and trusts the sensor"
else
    fail "as an unprivileged user, workout pair pairs through bluetoothd with its own agent (exit $status)"
fi
timeout 10 dbus-send --system --print-reply --dest=org.bluez /org/bluez/hci1 org.bluez.Adapter1.RemoveDevice \
    "objpath:$device_path" > /dev/null 2>&1
# The raw path's latency run, whose figures are compared with the D-Bus run's above.
OPENHEALTHKIT_ADAPTER=hci1 OPENHEALTHKIT_BLUETOOTH=raw "$latency" "ble:$peripheral" 30 \
    > "$logs/latency-raw.txt" 2> "$logs/latency-raw.err"
python3 "$scripts/bluetooth-latency.py" "$logs/gatt-server.log" "$logs/latency-dbus.txt" "$logs/latency-raw.txt" \
    > "$logs/latency.txt" 2>&1
status=$?
cat "$logs/latency.txt"
[ "$status" -eq 0 ] || { failures=$((failures + 1)); tail -3 "$logs/latency-dbus.err" "$logs/latency-raw.err"; }

# A sensor that protects its measurement (only with --bond): the example server again, its heart rate measurement
# flagged `encrypt-notify` (bluetoothd then lets only an encrypted link enable its notifications). `workout pair` must
# bond with it through its own agent (Just Works, no dialog), and a recording through bluetoothd must then read it.
# Not in CI: on this bench, once the two virtual controllers have bonded, bluetoothd (5.66) stops answering on the
# bus (alive, nothing logged), so everything after fails; `workout pair` itself gets as far as "bonded, trusted".
gatt_server_script=$logs/example-gatt-server-encrypted
sed "/self.HR_MSRMT_UUID,/{n;s/\['notify'\]/['encrypt-notify']/}" "$examples/example-gatt-server" > "$gatt_server_script"
if [ "$bond" != --bond ]; then
    echo "(the bonding check runs with scripts/bluetooth-vm-test.sh --bond)"
elif grep -q "'encrypt-notify'" "$gatt_server_script"; then
    stop_server
    start_server
    # The sensor's side of Just Works: a strap's firmware accepts it by itself; hci0's bluetoothd asks its default
    # agent, so one stands in for that firmware. It answers only for hci0 (the sensor's side), never for hci1's.
    python3 -u - "/org/bluez/hci0/dev_${central//:/_}" > "$logs/sensor-agent.log" 2>&1 <<'PY' &
import sys
import dbus, dbus.mainloop.glib, dbus.service
from gi.repository import GLib
dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
central = sys.argv[1]
class Agent(dbus.service.Object):
    def answer(self, device, what):
        print(f"{what} for {device}: {'accepted' if device == central else 'refused'}", flush=True)
        if device != central:
            raise dbus.DBusException("org.bluez.Error.Rejected", "not the sensor's side")
    @dbus.service.method("org.bluez.Agent1", in_signature="ou")
    def RequestConfirmation(self, device, passkey): self.answer(device, "RequestConfirmation")
    @dbus.service.method("org.bluez.Agent1", in_signature="o")
    def RequestAuthorization(self, device): self.answer(device, "RequestAuthorization")
    @dbus.service.method("org.bluez.Agent1", in_signature="os")
    def AuthorizeService(self, device, uuid): self.answer(device, "AuthorizeService")
    @dbus.service.method("org.bluez.Agent1")
    def Cancel(self): print("Cancel", flush=True)
    @dbus.service.method("org.bluez.Agent1")
    def Release(self): pass
bus = dbus.SystemBus()
Agent(bus, "/openhealthkit/sensor_agent")
manager = dbus.Interface(bus.get_object("org.bluez", "/org/bluez"), "org.bluez.AgentManager1")
manager.RegisterAgent("/openhealthkit/sensor_agent", "NoInputNoOutput")
manager.RequestDefaultAgent("/openhealthkit/sensor_agent")
print("sensor agent registered", flush=True)
GLib.MainLoop().run()
PY
    sensor_agent=$!
    wait_for 10 grep -q "sensor agent registered" "$logs/sensor-agent.log" || fail "the sensor side's agent registered"
    as_user "$workout" pair "$peripheral" --adapter hci1 --store "$dbus_store" --timeout 30 \
        > "$logs/pair-encrypted.txt" 2>&1
    status=$?
    # What bluetoothd and the kernel are doing after the bond (the bench's hang, see above).
    {
        ps -o pid,stat,wchan:32,cmd -C bluetoothd -C dbus-daemon
        cat "/proc/$bluetoothd/stack"
        timeout 5 dbus-send --system --print-reply --dest=org.freedesktop.DBus / org.freedesktop.DBus.ListNames \
            > /dev/null && echo "dbus-daemon answers" || echo "dbus-daemon does not answer"
        timeout 5 btmgmt --index 1 info > /dev/null && echo "the kernel's management interface answers" \
            || echo "the kernel's management interface does not answer"
    } > "$logs/bond-state.txt" 2>&1
    cat "$logs/bond-state.txt"
    if ! kill -0 "$bluetoothd" 2> /dev/null; then
        wait "$bluetoothd"
        echo "bluetoothd ended after the bond (exit $?)"
    fi
    cat "$logs/pair-encrypted.txt"
    paired=$(timeout 5 dbus-send --system --print-reply --dest=org.bluez "$device_path" \
        org.freedesktop.DBus.Properties.Get string:org.bluez.Device1 string:Paired 2>&1 | grep -c "boolean true")
    if [ "$status" -eq 0 ] && [ "$paired" -eq 1 ] && grep -q "^bluetoothd: bonded, trusted" "$logs/pair-encrypted.txt"; then
        pass "as an unprivileged user, workout pair bonds a sensor whose measurement needs encryption, with no dialog"
    else
        fail "as an unprivileged user, workout pair bonds a sensor whose measurement needs encryption (exit $status, bluetoothd's Paired: $paired)"
    fi
    before=$(grep -c "Updating value" "$logs/gatt-server.log")
    OPENHEALTHKIT_ADAPTER=hci1 as_user "$workout" record --store "$dbus_store" --activity running \
        --sensor "ble:$peripheral" --duration 15 --save-fixture /dev/shm/vm-test-encrypted.jsonl \
        > "$logs/record-encrypted.txt" 2>&1
    status=$?
    cat "$logs/record-encrypted.txt"
    cp /dev/shm/vm-test-encrypted.jsonl "$logs/record-encrypted.jsonl" 2> /dev/null
    received=$(grep -c '"c":"2A37"' "$logs/record-encrypted.jsonl" 2> /dev/null || echo 0)
    notified=$(($(grep -c "Updating value" "$logs/gatt-server.log") - before))
    if [ "$status" -eq 0 ] && [ "$received" -ge 5 ]; then
        pass "through bluetoothd, workout record read $received encrypted heart rates from the bonded sensor ($notified notified)"
    else
        fail "through bluetoothd, workout record read encrypted heart rates from the bonded sensor (exit $status, $received received, $notified notified)"
    fi
    cat "$logs/sensor-agent.log"
    kill "$sensor_agent"
    wait "$sensor_agent" 2> /dev/null
    # Both sides forget the bond, so the checks after this one start from the state they always had.
    forget_each_other
else
    fail "the example server's heart rate measurement could be flagged encrypt-notify (its source changed?)"
fi

# --- The raw path, with bluetoothd stopped (a box that runs none) ---------------------------------
# bluetoothd powers its adapters off as it exits; without it hci0 advertises through the kernel alone
# (mgmt Add Advertising: connectable, 0x180D, its name in the scan response). No GATT server runs
# without bluetoothd here, so the raw path's recording is the one checked above (L2CAP, the same code).
if timeout 5 dbus-send --system --print-reply --dest=org.bluez / org.freedesktop.DBus.ObjectManager.GetManagedObjects \
    > /dev/null 2>&1; then
    echo "bluetoothd answers on the bus before it is stopped"
else
    echo "bluetoothd does not answer on the bus before it is stopped (noted, not a check of workout)"
fi
kill "$advertiser" "$gatt_server" 2> /dev/null
stop_bluetoothd
wait "$advertiser" "$gatt_server" 2> /dev/null
power_both
btmgmt --index 0 name RawStrap > /dev/null
btmgmt --index 0 add-adv -c -g -n -u 180d 1 > "$logs/add-adv.txt" 2>&1
if pgrep -x bluetoothd > /dev/null; then fail "bluetoothd stopped"; fi

# A device the kernel auto-connects (nothing has this address): the kernel keeps a passive background
# scan running for it, as it does for a paired mouse or keyboard. workout's scan must leave it running.
absent=C0:DE:AD:00:00:01
btmgmt --index 1 add-device -a 2 -t 2 "$absent" > "$logs/add-device.txt" 2>&1
sleep 1
# 12 s: longer than the kernel's 10.24 s LE discovery, which it ends by itself; workout starts it again.
# BlueZ 5.66's emulated controller reports an advertiser only when scanning is enabled and when the advertiser
# enables advertising, never periodically as a real one does; the reports at scan enable reach the kernel before its
# discovery is marked active, and it drops them (mgmt Device Found is sent only while discovery is active). So the
# advertisement is started again every 1.5 s while workout scans, as a real strap advertises again and again: a single
# restart at a fixed moment missed when a loaded machine started the debug binary's discovery after it (CI, stop 40).
# scan_raw OUT ARGS…: `workout scan ARGS…` into OUT while hci0 advertises again every 1.5 s; its status in $status.
scan_raw() {
    local out=$1
    shift
    "$workout" scan "$@" > "$out" 2>&1 &
    local scanner=$!
    while kill -0 "$scanner" 2> /dev/null; do
        sleep 1.5
        btmgmt --index 0 rm-adv 1 > /dev/null 2>&1
        btmgmt --index 0 add-adv -c -g -n -u 180d 1 >> "$logs/add-adv.txt" 2>&1
    done
    wait "$scanner"
    status=$?
    cat "$out"
}
scan_raw "$logs/scan-raw.txt" --adapter hci1 --timeout 12
if [ "$status" -eq 0 ] && grep -E "^RawStrap +$peripheral .*0x180D" "$logs/scan-raw.txt" > /dev/null; then
    pass "without bluetoothd, workout scan hears RawStrap at $peripheral through the management channel"
else
    fail "without bluetoothd, workout scan hears RawStrap at $peripheral through the management channel (exit $status)"
fi
# Without bluetoothd and without --adapter (nor OPENHEALTHKIT_ADAPTER), every adapter that is up listens at once
# and the list says which heard the strap: hci1 (hci0 is the strap's own, advertising).
scan_raw "$logs/scan-raw-every.txt" --timeout 8
if [ "$status" -eq 0 ] && grep -E "^RawStrap +$peripheral .* hci1[ ,].*0x180D" "$logs/scan-raw-every.txt" > /dev/null; then
    pass "without bluetoothd and without --adapter, workout scan listens with every adapter up and says hci1 heard RawStrap"
else
    fail "without bluetoothd and without --adapter, workout scan listens with every adapter up and says hci1 heard RawStrap (exit $status)"
fi
sleep 2
# What hci1 was told, from btmon's capture: workout's Start/Stop Discovery (mgmt), no HCI scan command of its
# own, and the kernel's last scan setting after it: enabled and passive (its background scan, back on). btmon
# shortens command names ("LE Set Extended S.."), so they are matched by opcode: LE Set (Extended) Scan
# Parameters and Enable, 0x200B/0x200C and 0x2041/0x2042.
btmon -r "$logs/hci.btsnoop" > "$logs/btmon.txt" 2>&1
starts=$(grep -c "MGMT Command: Start Discovery (0x0023).*\[hci1\]" "$logs/btmon.txt")
stops=$(grep -c "MGMT Command: Stop Discovery (0x0024).*\[hci1\]" "$logs/btmon.txt")
if [ "$starts" -ge 2 ] && [ "$stops" -ge 1 ]; then
    pass "workout started discovery again after the kernel ended it ($starts Start Discovery, $stops Stop Discovery on hci1)"
else
    fail "workout started discovery again after the kernel ended it ($starts Start Discovery, $stops Stop Discovery on hci1)"
fi
last_scan=$(awk '
    /^[<>@] / { current = ($0 ~ /\[hci1\]/ && $0 ~ /HCI Command: .*\(0x08\|0x00(0b|0c|41|42)\)/) }
    current && /(Extended scan|Scanning): / { enable = $0 }
    current && /Type: (Passive|Active)/ { type = $0 }
    END { gsub(/^ +/, "", enable); gsub(/^ +/, "", type); print enable " / " type }' "$logs/btmon.txt")
echo "hci1's last scan setting after workout scan: $last_scan"
if echo "$last_scan" | grep -q "Enabled (0x01) / Type: Passive"; then
    pass "after workout scan the kernel's passive background scan on hci1 is on again"
else
    fail "after workout scan the kernel's passive background scan on hci1 is on again ($last_scan)"
fi

# Without CAP_NET_ADMIN the kernel refuses Start Discovery (Permission Denied), and workout says what to do.
setpriv --bounding-set=-net_admin --inh-caps=-net_admin "$workout" scan --adapter hci1 --timeout 2 \
    > "$logs/scan-unprivileged.txt" 2>&1
status=$?
cat "$logs/scan-unprivileged.txt"
if [ "$status" -eq 1 ] && grep -q "Scanning without bluetoothd needs the CAP_NET_ADMIN capability" "$logs/scan-unprivileged.txt" \
    && ! grep -qi "cap_net_raw" "$logs/scan-unprivileged.txt"; then
    pass "without CAP_NET_ADMIN, workout scan names that capability alone (exit 1)"
else
    fail "without CAP_NET_ADMIN, workout scan names that capability alone (exit $status)"
fi

# doctor without bluetoothd: the kernel's connection-parameter defaults are named with the lines to add,
# and a main.conf with them passes.
"$workout" doctor --store "$store" --bluetooth-configuration /nonexistent/main.conf > "$logs/doctor-raw.txt" 2>&1
status=$?
cat "$logs/doctor-raw.txt"
if grep -q "^✘ bluetoothd runs" "$logs/doctor-raw.txt" \
    && grep -q "^✘ Straps may choose their connection interval: the kernel refuses connection-parameter requests above 50 ms" "$logs/doctor-raw.txt" \
    && grep -q "add \`MaxConnectionInterval=520\`" "$logs/doctor-raw.txt" \
    && grep -q "^✘ A short fade does not drop the link: the supervision timeout is 420 ms" "$logs/doctor-raw.txt"; then
    pass "without bluetoothd, workout doctor names the connection-parameter defaults with the lines to add (exit $status)"
else
    fail "without bluetoothd, workout doctor names the connection-parameter defaults with the lines to add (exit $status)"
fi
printf '[LE]\nMaxConnectionInterval=520\nConnectionSupervisionTimeout=500\n' > "$logs/main.conf"
"$workout" doctor --store "$store" --bluetooth-configuration "$logs/main.conf" > "$logs/doctor-conf.txt" 2>&1
if grep -q "^✔ Straps may choose their connection interval: MaxConnectionInterval=520 (650 ms)" "$logs/doctor-conf.txt" \
    && grep -q "^✔ A short fade does not drop the link: ConnectionSupervisionTimeout=500 (5 s)" "$logs/doctor-conf.txt"; then
    pass "workout doctor accepts a main.conf with the lines it prints"
else
    fail "workout doctor accepts a main.conf with the lines it prints"
    cat "$logs/doctor-conf.txt"
fi
finish
