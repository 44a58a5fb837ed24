import Foundation
import Testing

@Suite(.blockingWaits, .timeLimit(.minutes(1))) struct DecodeCommandTests {
    func decode(_ arguments: String...) throws -> Tool.Result { try Tool.run(["decode"] + arguments) }

    /// Polar H7 flags 0x16 (contact + RR) and 0x10 (RR, contact not supported), as in public captures
    /// (reference notes §1); the third is uint16 rate + energy expended + RR (HRS 1.0 §3.1.1.1–4).
    @Test func heartRateMeasurements() throws {
        let result = try decode("2a37", "16463803", "10403c03", "19 48 00 4e 01 00 04")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "")
        #expect(
            result.stdout == """
                {"heartRate":70,"sensorContact":"detected","energyExpended":null,"rrIntervals":[0.8046875]}
                {"heartRate":64,"sensorContact":"notSupported","energyExpended":null,"rrIntervals":[0.80859375]}
                {"heartRate":72,"sensorContact":"notSupported","energyExpended":334,"rrIntervals":[1]}

                """)
    }

    /// Assioma Uno (flags 0x0020): one crank revolution in 1976/1024 s is 31.09 rpm (SmartSpin2k's
    /// asserted vector, reference notes §2.2).
    @Test func cyclingPowerCadenceFromTheAssiomaVector() throws {
        let result = try decode("0x2A63", "20 00 64 00 01 00 00 0b", "20006e000200b812")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == """
                {"instantaneousPower":100,"pedalPowerBalance":null,"accumulatedTorque":null,"wheelRevolutions":null,"lastWheelEventTime":null,"crankRevolutions":1,"lastCrankEventTime":2.75,"accumulatedEnergy":null}
                {"instantaneousPower":110,"pedalPowerBalance":null,"accumulatedTorque":null,"wheelRevolutions":null,"lastWheelEventTime":null,"crankRevolutions":2,"lastCrankEventTime":4.6796875,"accumulatedEnergy":null,"cadence":31.09311740890688,"speed":null}

                """)
    }

    /// CycleOps Magnus-style flags 0x1834 (torque, wheel, crank, energy, offset indicator): the CPS
    /// wheel event time ticks 1/2048 s, so 4 revolutions in 2048 ticks are 4 × 2.105 m in 1 s.
    @Test func cyclingPowerWithTorqueWheelCrankAndEnergy() throws {
        let result = try decode(
            "cycling-power-measurement", "3418960040010a0000000008030000040500", "3418960080020e0000000010040000080500")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == """
                {"instantaneousPower":150,"pedalPowerBalance":null,"accumulatedTorque":10,"wheelRevolutions":10,"lastWheelEventTime":1,"crankRevolutions":3,"lastCrankEventTime":1,"accumulatedEnergy":5}
                {"instantaneousPower":150,"pedalPowerBalance":null,"accumulatedTorque":20,"wheelRevolutions":14,"lastWheelEventTime":2,"crankRevolutions":4,"lastCrankEventTime":2,"accumulatedEnergy":5,"cadence":60,"speed":8.42}

                """)
    }

    /// CSC wheel event time ticks 1/1024 s (CSCS 1.0 §3.1): 4 revolutions of 2 m in 1 s.
    @Test func cscMeasurementWithWheelCircumference() throws {
        let result = try decode(
            "csc-measurement", "030a00000000040500000803", "030e00000000080600000c", "--wheel-circumference", "2")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == """
                {"wheelRevolutions":10,"lastWheelEventTime":1,"crankRevolutions":5,"lastCrankEventTime":2}
                {"wheelRevolutions":14,"lastWheelEventTime":2,"crankRevolutions":6,"lastCrankEventTime":3,"cadence":60,"speed":8}

                """)
    }

    /// The other characteristics the library decodes, by name or number, in the units `--help` names. Indoor Bike
    /// Data flags 0x0244: speed (bit 0 clear) 3048 × 0.01 km/h = 8.4666… m/s, cadence (bit 2) 180 × 0.5 rpm,
    /// power (bit 6) 200 W, heart rate (bit 9) 140 bpm (FTMS 1.0 §4.9). RSC flags 0x02 (total distance): 0x03E0 / 256
    /// = 3.875 m/s, 80 steps a minute, 0x04030201 / 10 m. Supported Power Range 0–1000 W by 5 W (§4.18). Fitness Machine
    /// Status 0x08 (target power changed) with 250 W (§4.16.2.9). A control point answer (0x80): Set Target Power
    /// (0x05) succeeded (§4.16.2.22). Sensor Location 13 is the rear hub (CPS 1.1 §3.3).
    @Test func everyCharacteristicTheLibraryDecodes() throws {
        let cases: [([String], String)] = [
            (
                ["indoor-bike-data", "4402e80bb400c8008c"],
                #"{"speed":8.466666666666667,"averageSpeed":null,"cadence":90,"averageCadence":null,"totalDistance":null,"resistanceLevel":null,"power":200,"averagePower":null,"energy":null,"energyPerHour":null,"energyPerMinute":null,"heartRate":140,"metabolicEquivalent":null,"elapsedTime":null,"remainingTime":null}"#
            ),
            (
                ["0x2A53", "02e0035001020304"],
                #"{"speed":3.875,"cadence":80,"strideLength":null,"totalDistance":6730598.5,"running":false}"#
            ),
            (["supported-power-range", "0000e8030500"], #"{"minimum":0,"maximum":1000,"increment":5}"#),
            (["2ada", "08fa00"], #"{"opCode":8,"status":"target power 250 W","targetPower":250}"#),
            (["fitness-machine-control-point", "800501"], #"{"requestOpCode":5,"result":"success"}"#),
            (["sensor-location", "0d"], #"{"sensorLocation":"rear hub"}"#),
            (["manufacturer-name", "576168"], #"{"manufacturerName":"Wah"}"#),
        ]
        for (arguments, line) in cases {
            let result = try decode(arguments[0], arguments[1])
            #expect(result.transcript == line + "\n", "\(arguments)")
        }
    }

    @Test(
        arguments: [
            (["2a37", "0616", "1g"], "workout: Payload 2 is not hex: 'g' at byte offset 0.\n"),
            (["2a37", "16463"], "workout: Payload 1 has an odd number of hex digits: byte offset 2 is incomplete.\n"),
            (
                ["2a37", "11"],
                "workout: Payload 1 is not a valid Heart Rate Measurement: expected 2 bytes for heart rate (uint16), found 0 at byte offset 1.\n"
            ),
            (["2a37", "103c0004"], nil),
            (
                ["indoor-bike-data", "4402e80bb400c800"],
                "workout: Payload 1 is not a valid Indoor Bike Data: expected 1 byte for heart rate, found 0 at byte offset 8.\n"
            ),
            (
                ["2a37", "103c000401"],
                "workout: Payload 1 is not a valid Heart Rate Measurement: odd trailing byte in RR interval list at byte offset 4.\n"
            ),
            (
                ["0x2a63", "20006400010000"],
                "workout: Payload 1 is not a valid Cycling Power Measurement: expected 2 bytes for last crank event time, found 1 at byte offset 6.\n"
            ),
            (
                ["2a5b", "03"],
                "workout: Payload 1 is not a valid CSC Measurement: expected 4 bytes for cumulative wheel revolutions, found 0 at byte offset 1.\n"
            ),
            (
                ["2a99", "00"],
                "workout: '2a99' is not a characteristic this tool decodes; `workout decode --help` lists them (0x2A37 or heart-rate-measurement, say).\n"
            ),
        ] as [([String], String?)])
    func badInputIsOneSentenceNamingTheOffset(arguments: [String], expected: String?) throws {
        let result = try Tool.run(["decode"] + arguments)
        if let expected {
            #expect(result.status == 1)
            #expect(result.stdout == "", "nothing is printed when any payload is bad")
            #expect(result.stderr == expected)
        } else {
            #expect(result.status == 0, "\(result.stderr)")
        }
    }
}
