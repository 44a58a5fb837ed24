// A companion in its own process, for the mirroring test: it waits for a primary session on a store file and
// reports what its mirrored session is told, one line each, on standard output.
//
//     MirrorCompanionHelper STORE_PATH
//
// Lines: "listening" once it waits; "mirrored ACTIVITY STATE" when the handler receives a session (raw values);
// "state FROM TO SECONDS" and "event TYPE SECONDS" (seconds since the reference date); "data TEXT" for each item
// received; "statistics TYPE VALUE" for an archived HKStatistics (what Apple's multidevice sample sends; heart rate
// in count/min, other types in their storage unit); "disconnected nil" or "disconnected error" — then it exits 0.
// Text it receives is answered: "pause" and "end" make the mirrored session call pause() or end() (which act on the
// primary); anything else is sent back as "echo:TEXT".
import Foundation
import OpenHealthKit

func report(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

final class Companion: HKWorkoutSessionDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var sessions: [HKWorkoutSession] = []

    func keep(_ session: HKWorkoutSession) { lock.withLock { sessions.append(session) } }

    func workoutSession(
        _ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState,
        from fromState: HKWorkoutSessionState, date: Date
    ) {
        report("state \(fromState.rawValue) \(toState.rawValue) \(date.timeIntervalSinceReferenceDate)")
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didGenerate event: HKWorkoutEvent) {
        report("event \(event.type.rawValue) \(event.dateInterval.start.timeIntervalSinceReferenceDate)")
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didReceiveDataFromRemoteWorkoutSession data: [Data]) {
        for item in data {
            if let statistics = try? NSKeyedUnarchiver.unarchivedObject(ofClass: HKStatistics.self, from: item) {
                let type = statistics.quantityType
                let unit =
                    type == HKQuantityType(.heartRate) ? HKUnit.count().unitDivided(by: .minute()) : type.storageUnit
                let value =
                    statistics.mostRecentQuantity()?.doubleValue(for: unit)
                    ?? statistics.sumQuantity()?.doubleValue(for: unit)
                report("statistics \(type.identifier) \(value.map { String(Int($0.rounded())) } ?? "–")")
                continue
            }
            let text = String(decoding: item, as: UTF8.self)
            report("data \(text)")
            if text == "pause" {
                workoutSession.pause()
            } else if text == "end" {
                workoutSession.end()
            } else {
                workoutSession.sendToRemoteWorkoutSession(data: Data("echo:\(text)".utf8)) { _, _ in }
            }
        }
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didDisconnectFromRemoteDeviceWithError error: (any Error)?)
    {
        report("disconnected \(error == nil ? "nil" : "error")")
        exit(0)
    }
}

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: MirrorCompanionHelper STORE_PATH\n".utf8))
    exit(2)
}
let store = try HKHealthStore(databasePath: CommandLine.arguments[1], clientIdentifier: "companion")
let companion = Companion()
store.workoutSessionMirroringStartHandler = { session in
    companion.keep(session)
    session.delegate = companion
    report("mirrored \(session.workoutConfiguration.activityType.rawValue) \(session.state.rawValue)")
}
if let error = store.workoutSessionMirroringError {
    FileHandle.standardError.write(Data("\(error.message)\n".utf8))
    exit(1)
}
report("listening")
// Wait until the primary disconnects (the delegate exits) or the test kills the process.
let forever = DispatchSemaphore(value: 0)
await withCheckedContinuation { (resume: CheckedContinuation<Void, Never>) in
    DispatchQueue.global().async {
        forever.wait()
        resume.resume()
    }
}
