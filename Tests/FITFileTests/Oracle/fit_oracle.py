#!/usr/bin/env python3
"""Independent FIT implementations for the tests: Garmin's FIT SDK for Python (garmin-fit-sdk) and fitparse.

    fit_oracle.py encode-activity OUT.fit [SECONDS] [--multisport] [--route]
                                                                     a ride written by Garmin's encoder (--route:
                                                                     with positions, 47° + t × 0.0001° N,
                                                                     8° + t × 0.0002° E, in semicircles)
    fit_oracle.py decode-garmin FILE.fit                             every message, as Garmin's decoder reads it
    fit_oracle.py decode-fitparse FILE.fit                           every message, as fitparse reads it
    fit_oracle.py bench-fitparse|bench-garmin FILE.fit               records decoded, seconds, peak RSS (for FITBenchmark)
    fit_oracle.py coggan-np FILE.fit                                 normalized power by GoldenCheetah's rule (below)

Decoded messages are printed as one JSON array, in file order: {"num": global number, "fields": {field number:
stored value}} with values as stored (no scale, offset, enum names or dates), invalid values left out, and the
fields each library synthesizes from components or sub-fields left out, so they compare with FITFile's raw values.
"""
import json
import math
import sys

START = 1_100_000_000  # FIT time (s since 1989-12-31 UTC): 2024-11-08 11:33:20 UTC; the encoder takes it as stored


def semicircles(degrees):
    return int(round(degrees * 2**31 / 180))


def encode_activity(path, seconds, multisport, route=False):
    from garmin_fit_sdk import Encoder, Profile
    num = Profile["mesg_num"]
    encoder = Encoder()
    encoder.on_mesg(num["FILE_ID"], {"type": "activity", "manufacturer": "development", "product": 7,
                                     "serial_number": 123456789, "time_created": START + (7 if multisport else 0),
                                     "product_name": "OpenHealthKit oracle"})
    encoder.on_mesg(num["FILE_CREATOR"], {"software_version": 321})
    encoder.on_mesg(num["DEVICE_INFO"], {"timestamp": START, "device_index": "creator", "manufacturer": "development",
                                         "product": 7, "serial_number": 123456789, "software_version": 3.21,
                                         "product_name": "OpenHealthKit oracle"})
    encoder.on_mesg(num["DEVICE_INFO"], {"timestamp": START, "device_index": 1, "device_type": 120,
                                         "manufacturer": "garmin", "product": 1902, "serial_number": 3339999,
                                         "source_type": "bluetooth_low_energy", "battery_level": 87})
    encoder.on_mesg(num["EVENT"], {"timestamp": START, "event": "timer", "event_type": "start"})
    pause_at, resume_at = seconds // 2, seconds // 2 + 30
    distance = 0.0
    legs = [(0, seconds)] if not multisport else [(0, seconds // 3), (seconds // 3, seconds // 3 + 60), (seconds // 3 + 60, seconds)]
    for t in range(seconds):
        if t == pause_at:
            encoder.on_mesg(num["EVENT"], {"timestamp": START + t, "event": "timer", "event_type": "stop_all"})
        if pause_at <= t < resume_at:
            continue
        if t == resume_at:
            encoder.on_mesg(num["EVENT"], {"timestamp": START + t, "event": "timer", "event_type": "start"})
        speed = 8.0 + 2.0 * math.sin(t / 60.0)
        distance += speed
        position = {"position_lat": semicircles(47 + t * 1e-4), "position_long": semicircles(8 + t * 2e-4)} if route else {}
        encoder.on_mesg(num["RECORD"], {
            **position,
            "timestamp": START + t,
            "heart_rate": 120 + (t * 7) % 50,
            "power": 150 + (t * 13) % 200,
            "cadence": 80 + (t * 3) % 20,
            "speed": round(speed, 3),
            "distance": round(distance, 2),
            "altitude": 100 + (t % 40) * 0.2,
            "temperature": 18,
        })
        if t % 10 == 0:
            encoder.on_mesg(num["HRV"], {"time": [0.5 + (t % 7) * 0.01, 0.51]})
    end = START + seconds
    for i, (a, b) in enumerate(legs):
        sport = "cycling" if not multisport else ["swimming", "transition", "cycling"][i]
        encoder.on_mesg(num["LAP"], {"timestamp": START + b, "start_time": START + a,
                                     "total_elapsed_time": float(b - a), "total_timer_time": float(b - a), "sport": sport,
                                     "event": "lap", "event_type": "stop", "message_index": i})
    for i, (a, b) in enumerate(legs):
        sport, sub = ("cycling", "road") if not multisport else [("swimming", "open_water"), ("transition", "generic"), ("cycling", "road")][i]
        encoder.on_mesg(num["SESSION"], {"timestamp": START + b, "start_time": START + a,
                                         "total_elapsed_time": float(b - a), "total_timer_time": float(b - a),
                                         "sport": sport, "sub_sport": sub, "first_lap_index": i, "num_laps": 1,
                                         "event": "session", "event_type": "stop", "message_index": i})
    encoder.on_mesg(num["EVENT"], {"timestamp": end, "event": "timer", "event_type": "stop_all"})
    encoder.on_mesg(num["ACTIVITY"], {"timestamp": end, "total_timer_time": float(seconds - 30),
                                      "num_sessions": len(legs), "type": "manual", "event": "activity", "event_type": "stop"})
    with open(path, "wb") as out:
        out.write(encoder.close())


def garmin_messages(path):
    from garmin_fit_sdk import Decoder, Stream, Profile
    out = []

    def listener(mesg_num, message):
        profile = Profile["messages"].get(mesg_num)
        names = {f["name"]: n for n, f in profile["fields"].items()} if profile else {}
        fields = {}
        for key, value in message.items():
            if key == "developer_fields":
                continue
            number = names.get(key, key)
            if isinstance(number, int):
                fields[str(number)] = value
        out.append({"num": mesg_num, "fields": fields})

    decoder = Decoder(Stream.from_file(path))
    _, errors = decoder.read(apply_scale_and_offset=False, convert_datetimes_to_dates=False,
                             convert_types_to_strings=False, expand_sub_fields=False, expand_components=False,
                             merge_heart_rates=False, mesg_listener=listener)
    if errors:
        raise SystemExit(f"garmin-fit-sdk: {errors[0]}")
    return out


def fitparse_messages(path):
    import fitparse
    out = []
    for message in fitparse.FitFile(path, check_crc=True).get_messages():
        fields = {}
        for field in message.fields:
            if field.raw_value is None:
                continue  # invalid
            if field.field_def is None and field.def_num != 253:
                continue  # expanded from a component (a compressed header's timestamp is kept as 253)
            if isinstance(field.field_def, fitparse.records.DevField):
                continue  # developer fields are compared separately
            if field.field_def is not None and field.field_def.def_num != field.def_num:
                continue
            value = field.raw_value
            if isinstance(value, (bytes, bytearray)):
                value = list(value)
            if isinstance(value, tuple):
                value = list(value)
            fields[str(field.def_num)] = value
        out.append({"num": message.mesg_num, "fields": fields})
    return out


def coggan_np(path):
    """Normalized power as GoldenCheetah computes it (src/Metrics/Coggan.cpp, class NP), over the file's records as
    fitparse reads them, at GoldenCheetah's recording interval of 1 s: every record in order enters a 30-point
    rolling window that starts empty (zeros), and the mean of every window's average to the 4th power is taken from
    the first record on. A record without power counts 0 W, as a ride point without watts does there. Prints the
    normalized power, how many records it took, and the first 29 records' powers (the windows the rules differ on)."""
    import fitparse
    powers = []
    for message in fitparse.FitFile(path, check_crc=True).get_messages("record"):
        power = message.get_value("power")
        powers.append(float(power) if power is not None else 0.0)
    window = [0.0] * 30
    total, running, index = 0.0, 0.0, 0
    for power in powers:
        running += power - window[index]
        window[index] = power
        total += (running / 30) ** 4
        index = (index + 1) % 30
    np = (total / len(powers)) ** 0.25 if powers else None
    return {"np": np, "count": len(powers), "head": powers[:29]}


def main():
    command = sys.argv[1]
    if command == "encode-activity":
        seconds = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3].isdigit() else 600
        encode_activity(sys.argv[2], seconds, "--multisport" in sys.argv, "--route" in sys.argv)
    elif command == "decode-garmin":
        json.dump(garmin_messages(sys.argv[2]), sys.stdout)
    elif command == "decode-fitparse":
        json.dump(fitparse_messages(sys.argv[2]), sys.stdout)
    elif command == "coggan-np":
        json.dump(coggan_np(sys.argv[2]), sys.stdout)
    elif command in ("bench-fitparse", "bench-garmin"):
        import resource
        import time
        began = time.perf_counter()
        if command == "bench-fitparse":
            import fitparse
            records = sum(1 for m in fitparse.FitFile(sys.argv[2], check_crc=True).get_messages() if m.mesg_num == 20)
        else:
            from garmin_fit_sdk import Decoder, Stream
            messages, errors = Decoder(Stream.from_file(sys.argv[2])).read()
            records = len(messages.get("record_mesgs", []))
        seconds = time.perf_counter() - began
        json.dump({"records": records, "seconds": seconds,
                   "peakRSSKB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}, sys.stdout)
    else:
        raise SystemExit(f"unknown command {command}")


if __name__ == "__main__":
    main()
