import FitnessSensors
import Foundation
import TestSupport
import Testing

@testable import OpenHealthKit
@testable import WorkoutCommands

/// The live view as exact output, on a virtual clock: a real session, builder and data source fed by scripted
/// sensors, read only through the public API (``LiveMonitor``), formatted by ``LiveView``.
@Suite(.timeLimit(.minutes(1))) struct LiveViewTests {
    static let t0 = Date(timeIntervalSinceReferenceDate: 800_000_000)

    final class WallClock: @unchecked Sendable {
        private let lock = NSLock()
        private var current = LiveViewTests.t0
        let monotonic = ManualClock()
        var now: Date { lock.withLock { current } }
        func set(_ offset: TimeInterval) { lock.withLock { current = LiveViewTests.t0 + offset } }
    }

    @Test func frameOnAVirtualClockAndZoneTimesEqualTheSavedOnes() async throws {
        let clock = WallClock()
        let store = HKHealthStore.inMemory(
            clientIdentifier: "view-tests",
            clocks: LiveClocks(wall: { clock.now }, monotonic: clock.monotonic, deliverySpacing: .zero))
        let types = HKLiveWorkoutDataSource.collectableTypes
        try await store.requestAuthorization(toShare: types, read: Set(types.map { $0 as HKObjectType }))
        let configuration = HKWorkoutConfiguration()
        configuration.activityType = .cycling
        let session = try HKWorkoutSession(healthStore: store, configuration: configuration)
        let builder = session.associatedWorkoutBuilder()
        let source = HKLiveWorkoutDataSource(healthStore: store, workoutConfiguration: configuration)
        let strap = ScriptedSensor(identifier: "test:strap", name: "Strap", capabilities: .heartRateStrap)
        let trainer = ScriptedSensor(identifier: "test:trainer", name: "Trainer", capabilities: .powerMeter)
        let pedals = ScriptedSensor(identifier: "test:pedals", name: "Pedals", capabilities: .powerMeter)
        for sensor in [strap, trainer, pedals] { source.attach(sensor) }
        builder.dataSource = source
        let bpm = HKUnit(from: "count/min")
        try await builder.setCustomZoneConfiguration(
            try HKWorkoutZoneConfiguration(
                quantityType: HKQuantityType(.heartRate),
                zoneBoundaries: [100, 120, 140, 160].map { HKQuantity(unit: bpm, doubleValue: $0) }),
            for: HKQuantityType(.heartRate))
        let monitor = LiveMonitor(session: session, builder: builder, dataSource: source, start: Self.t0)
        builder.delegate = monitor
        session.startActivity(with: Self.t0)
        try await builder.beginCollection(at: Self.t0)
        await monitor.loadZones()

        _ = strap.send(.battery(BatteryReading(percent: 77)), at: Self.t0)
        // 0–9 s: the strap at 125 bpm, the trainer at 200 + 10 × s W, the pedals at 210 W, each once a second.
        for second in 0 ... 9 {
            clock.set(Double(second))
            let at = Self.t0 + Double(second)
            _ = strap.send(.heartRate(HeartRateReading(bpm: 125, contact: .detected)), at: at)
            _ = trainer.send(.power(PowerReading(watts: 200 + 10 * second)), at: at)
            _ = pedals.send(.power(PowerReading(watts: 210)), at: at)
            await builder.waitForDelegateCalls()
            if second == 5 {
                try await builder.addWorkoutEvents([
                    HKWorkoutEvent(type: .lap, dateInterval: DateInterval(start: Self.t0, end: at), metadata: nil)
                ])
            }
        }
        clock.set(9.4)
        await builder.waitForDelegateCalls()
        // By hand: moving and elapsed 9.4 s (0:09); one lap at 5 s, so lap 2 for 4.4 s; power is the trainer's (listed
        // first): 290 W now, 3 s average of its readings at 7, 8, 9 s = (270 + 280 + 290) / 3 = 280; 125 bpm is in
        // [120, 140), the third zone, for all 9.4 s (each reading holds until the next, the last until now).
        #expect(
            LiveView.lines(monitor.snapshot(at: clock.now)) == [
                "cycling   moving 0:09   elapsed 0:09   lap 2  0:04",
                "heart rate 125 bpm   power 290 W (3 s 280 W)   cadence –   speed –",
                "zone Z3 120–139 bpm [░░░░░░|░░░░░░|██████|░░░░░░|░░░░░░]",
                "Z1 0:00  Z2 0:00  Z3 0:09  Z4 0:00  Z5 0:00",
                "Strap       connected   battery 77 %   skin contact yes",
                "Trainer     connected",
                "Pedals      connected",
            ])

        // 10 s: the trainer's link drops; the strap loses skin contact (no heart rate from then on); the pedals go on.
        clock.set(10)
        _ = trainer.send(.connection(.disconnected(reason: "The sensor closed the link."), at: Self.t0 + 10))
        for second in 10 ... 15 {
            clock.set(Double(second))
            let at = Self.t0 + Double(second)
            _ = strap.send(.heartRate(HeartRateReading(bpm: 125, contact: .notDetected)), at: at)
            _ = pedals.send(.power(PowerReading(watts: 210)), at: at)
            await builder.waitForDelegateCalls()
        }
        clock.set(15.5)
        // By hand: the last heart rate is 9 s old (older than 3 s: "–"); the zone engine holds it 10 s, to 19 s, so
        // Z3 is still in effect with 15.5 s. The trainer is lost since 10 s (5 s); power is the pedals' 210 W, the
        // 3 s average over (12.5, 15.5]: the pedals at 13, 14, 15 s = 210.
        #expect(
            LiveView.lines(monitor.snapshot(at: clock.now)) == [
                "cycling   moving 0:16   elapsed 0:16   lap 2  0:11",
                "heart rate –   power 210 W (3 s 210 W)   cadence –   speed –",
                "zone Z3 120–139 bpm [░░░░░░|░░░░░░|██████|░░░░░░|░░░░░░]",
                "Z1 0:00  Z2 0:00  Z3 0:16  Z4 0:00  Z5 0:00",
                "Strap       connected   battery 77 %   skin contact no",
                "Trainer     lost 5 s",
                "Pedals      connected",
            ])
        #expect(monitor.takeEventLines(at: clock.now) == ["0:00  zone Z3", "0:05  lap 1", "0:10  Trainer lost"])

        // Paused from 16 s to 17 s, then a lap at 18 s: the lap spans back to 5 s, so the builder lists it before
        // the pause; the piped lines still show each event once, in time order.
        clock.set(16)
        session.pause()
        clock.set(17)
        session.resume()
        clock.set(18)
        try await builder.addWorkoutEvents([
            HKWorkoutEvent(type: .lap, dateInterval: DateInterval(start: Self.t0 + 5, end: Self.t0 + 18), metadata: nil)
        ])
        await builder.waitForDelegateCalls()
        #expect(
            monitor.takeEventLines(at: clock.now).filter { !$0.contains("zone") } == [
                "0:16  paused", "0:17  resumed", "0:18  lap 2",
            ])

        clock.set(30)
        session.end()
        try await builder.endCollection(at: Self.t0 + 30)
        await builder.waitForDelegateCalls()
        let end = monitor.snapshot(at: Self.t0 + 30)
        let workout = try #require(try await builder.finishWorkout())
        let saved = try #require(workout.zoneGroup(for: HKQuantityType(.heartRate))).zoneDurations.map(\.duration)
        // The view's last zone times are the saved workout's, to the second: 9 readings held to the next, the last
        // held until the pause at 16 s (after a resume, zone time counts from the next sample, and none came):
        // 9 + 7 = 16 s in Z3.
        #expect(end.zoneTimes.map { Int($0.rounded()) } == saved.map { Int($0.rounded()) })
        #expect(saved.map { Int($0.rounded()) } == [0, 0, 16, 0, 0])
        let statuses = source.sensorStatuses
        #expect(statuses.map(\.dropouts) == [0, 1, 0])
        #expect(statuses[1].timeWithoutData(at: Self.t0 + 30) == 20)
    }

    /// A terminal narrower than a line: the line is folded at a space (its words whole, the continuation indented),
    /// and the next frame goes back up over every row drawn, not one per line, so no old row is left behind.
    @Test func framesFoldToANarrowTerminalAndRedrawOverEveryRow() {
        final class Source: LiveSource, @unchecked Sendable {
            func snapshot(at now: Date) -> LiveSnapshot {
                LiveSnapshot(
                    elapsed: 61, moving: 61, activity: "cycling", paused: false, heartRate: 172, power: 1015,
                    power3s: 1002,
                    cadence: 104, speed: 12.5, showsPower: true, showsCadence: true, showsSpeed: true, zone: 4,
                    zoneBoundaries: [137, 148, 159, 170], zoneTimes: [1, 2, 3, 4, 51], laps: 0, lapTime: 61,
                    sensors: [
                        .init(
                            name: "Polar H10 8A1C2D3E",
                            state: "connecting (attempt 3): Nothing answers at that address.",
                            battery: nil, skinContact: nil)
                    ])
            }
            func takeEventLines(at now: Date) -> [String] { [] }
        }
        final class Output: @unchecked Sendable { var text = "" }
        let output = Output()
        let display = LiveDisplay(monitor: Source(), terminal: true, now: { Self.t0 })
        display.columns = { 40 }
        display.write = { output.text += $0 }
        display.tick(at: Self.t0)
        let first = output.text
        let rows = first.components(separatedBy: "\n").dropLast().map {
            $0.replacingOccurrences(of: "\r\u{1B}[2K", with: "")
        }
        #expect(
            rows == [
                "cycling   moving 1:01   elapsed 1:01",
                "  lap 1  1:01",
                "heart rate 172 bpm   power 1015 W (3 s",
                "  1002 W)   cadence 104 rpm   speed",
                "  45.0 km/h",
                "zone Z5 ≥ 170 bpm",
                "  [░░░░░░|░░░░░░|░░░░░░|░░░░░░|██████]",
                "Z1 0:01  Z2 0:02  Z3 0:03  Z4 0:04  Z5",
                "  0:51",
                "Polar H10 8A1C2D3E  connecting (attempt",
                "  3): Nothing answers at that address.",
            ])
        #expect(rows.allSatisfy { $0.count <= 40 })
        display.tick(at: Self.t0)
        #expect(output.text.dropFirst(first.count).hasPrefix("\u{1B}[\(rows.count)A"))
        // Wide enough, nothing changes.
        #expect(LiveDisplay.folded(["a b c"], columns: 80) == ["a b c"])
        #expect(LiveDisplay.folded(["abcdefghijklmnop"], columns: 10) == ["abcdefghij", "  klmnop"])
    }

    /// With power zones (an FTP of 250 W: 137.5/187.5/225/262.5/300), a line shows the power zone in effect; without,
    /// none does.
    @Test func thePowerZoneHasALineWhenTheWorkoutHasPowerZones() {
        var snapshot = LiveSnapshot(
            elapsed: 61, moving: 61, activity: "cycling", paused: false, heartRate: 140, power: 210, power3s: 205,
            cadence: nil, speed: nil, showsPower: true, showsCadence: false, showsSpeed: false, zone: 1,
            zoneBoundaries: [136.8, 147.6, 158.4, 169.2], zoneTimes: [30, 31, 0, 0, 0], laps: 0, lapTime: 61,
            sensors: [])
        #expect(!LiveView.lines(snapshot).contains { $0.hasPrefix("power zone") })
        snapshot.powerZoneBoundaries = [137.5, 187.5, 225, 262.5, 300]
        #expect(LiveView.lines(snapshot).last == "power zone –")
        snapshot.powerZone = 2
        #expect(
            LiveView.lines(snapshot) == [
                "cycling   moving 1:01   elapsed 1:01   lap 1  1:01",
                "heart rate 140 bpm   power 210 W (3 s 205 W)",
                "zone Z2 137–147 bpm [░░░░░░|██████|░░░░░░|░░░░░░|░░░░░░]",
                "Z1 0:30  Z2 0:31  Z3 0:00  Z4 0:00  Z5 0:00",
                "power zone Z3 188–224 W [░░░░░░|░░░░░░|██████|░░░░░░|░░░░░░|░░░░░░]",
            ])
    }

    /// A run with a foot pod: its cadence in steps a minute (the live monitor's last step sample, `RunningCadence`),
    /// never in a ride's rpm.
    @Test func aRunsCadenceIsInStepsAMinute() {
        var snapshot = LiveSnapshot(
            elapsed: 61, moving: 61, activity: "running", paused: false, heartRate: nil, power: nil, power3s: nil,
            cadence: 172.6, speed: 3.3, showsPower: false, showsCadence: true, showsSpeed: true, zone: nil,
            zoneBoundaries: [], zoneTimes: [0], laps: 0, lapTime: 61, sensors: [])
        snapshot.cadenceUnit = "steps/min"
        #expect(LiveView.lines(snapshot)[1] == "heart rate –   cadence 173 steps/min   speed 11.9 km/h")
    }

    /// A sensor's connection in words, as the status line shows it, from the events a BLE sensor sends.
    @Test func sensorStatesInWords() {
        let now = Self.t0 + 100
        func status(_ connection: HKSensorStatus.Connection, problem: String? = nil) -> HKSensorStatus {
            HKSensorStatus(
                identifier: "x", name: "X", capabilities: .heartRateStrap, connection: connection, batteryPercent: nil,
                skinContact: nil, dropouts: 0, malformedNotifications: 0, problem: problem, closedDropoutTime: 0)
        }
        #expect(LiveSnapshot.SensorLine.words(status(.connecting(attempt: 1)), at: now) == "connecting")
        #expect(
            LiveSnapshot.SensorLine.words(status(.connecting(attempt: 3), problem: "Nothing answers."), at: now)
                == "connecting (attempt 3): Nothing answers.")
        #expect(LiveSnapshot.SensorLine.words(status(.connected), at: now) == "connected")
        #expect(LiveSnapshot.SensorLine.words(status(.lost(since: Self.t0 + 88, reason: nil)), at: now) == "lost 12 s")
        #expect(
            LiveSnapshot.SensorLine.words(status(.reconnecting(since: Self.t0 + 88, attempt: 3)), at: now)
                == "reconnecting (attempt 3)")
    }

    /// A trainer's line in each state its control can be in, and the keys that change the target.
    @Test func trainerLines() {
        typealias State = FitnessMachineControl.State
        func line(_ state: State) -> String { LiveView.machineLine(.init(name: "Kickr", state: state)) }
        var state = State(isConnected: true, offersControl: true)
        #expect(line(state) == "Kickr  no target  (+ or - sets one)")
        state.requestedTargetPower = 200
        #expect(line(state) == "Kickr  ERG 200 W asked  (+/- 10 W)")
        state.hasControl = true
        state.targetPower = 200
        #expect(line(state) == "Kickr  ERG 200 W  (+/- 10 W)")
        state.requestedTargetPower = 210
        #expect(line(state) == "Kickr  ERG 200 W, 210 W asked  (+/- 10 W)")
        state.lastError = FitnessMachineControlError(
            request: "set target power to 3000 W", reason: .refused(.invalidParameter))
        #expect(
            line(state)
                == "Kickr  ERG 200 W, 210 W asked  (+/- 10 W)  The machine refused to set target power to 3000 W: invalid parameter."
        )
        let refused = State(
            isConnected: true, offersControl: true, requestedTargetPower: 200,
            lastError: FitnessMachineControlError(request: "request control", reason: .refused(.controlNotPermitted)),
            refusedControl: .controlNotPermitted)
        #expect(line(refused) == "Kickr  refused control (control not permitted); recording only")
        #expect(TerminalKeys.command(for: UInt8(ascii: "+")) == .raiseTarget)
        #expect(TerminalKeys.command(for: UInt8(ascii: "=")) == .raiseTarget)
        #expect(TerminalKeys.command(for: UInt8(ascii: "-")) == .lowerTarget)
    }

    /// A running plan's line, from the runner's own figures: 20 s into a 60 s warm-up at 140–160 W ridden at
    /// 150 W, 40 s left, the work step next; shifted by +10 % its target is 165 W; the figures travel to a companion
    /// and into the page's JSON unchanged.
    @Test func planLinesAndTheirTrip() throws {
        var runner = PlanRunner(steps: [
            .init(name: "Warm-up", goal: .time(60), power: .range(140 ... 160)),
            .init(name: "Work", goal: .time(30), power: .threshold(280)),
        ])
        _ = runner.start(at: Self.t0, progress: .init(moving: 0))
        let progress = PlanRunner.Progress(moving: 20, power: 150)
        _ = runner.update(at: Self.t0 + 20, progress: progress)
        let status = try #require(runner.status(at: Self.t0 + 20, progress: progress))
        #expect(
            LiveView.planLines(status, power3s: 152)
                == ["step 1/2 Warm-up   target 150 W   3 s 152 W   step avg 150 W   left 0:40   next Work"])
        runner.shift(by: 10)
        var shifted = try #require(runner.status(at: Self.t0 + 20, progress: progress))
        shifted.notice = "No trainer is under control: the plan runs as guidance."
        #expect(
            LiveView.planLines(shifted, power3s: nil) == [
                "step 1/2 Warm-up   target 165 W   3 s –   step avg 150 W   left 0:40   next Work   power +10 %",
                "No trainer is under control: the plan runs as guidance.",
            ])
        // To a companion and back, then into the page's JSON.
        var figures = LiveWorkoutFigures(
            date: Self.t0 + 20, startDate: Self.t0, elapsedTime: 20, elapsedTimeAtLastLap: 0, laps: 0,
            collectedTypes: [], mostRecent: [:], heartRateZones: nil, sensors: [])
        figures.plan = shifted
        let sent = try LiveWorkoutFigures(data: figures.encoded())
        #expect(sent.plan == shifted)
        let snapshot = LiveSnapshot(
            figures: sent, at: Self.t0 + 20, elapsed: 20, activity: "cycling", paused: false, running: true,
            zone: nil, zoneBoundaries: [])
        let json = try #require(try JSONSerialization.jsonObject(with: snapshot.jsonData()) as? [String: Any])
        let plan = try #require(json["plan"] as? [String: Any])
        #expect(plan["step"] as? Int == 1 && plan["steps"] as? Int == 2 && plan["name"] as? String == "Warm-up")
        #expect(plan["targetPower"] as? Double == 165 && plan["ergTargetPower"] as? Int == 165)
        #expect(plan["secondsLeft"] as? Double == 40 && plan["next"] as? String == "Work")
        #expect(plan["shiftPercent"] as? Int == 10 && plan["finished"] as? Bool == false)
        #expect(TerminalKeys.command(for: UInt8(ascii: "n")) == .skipStep)
    }
}
