// A companion in its own process, for the mirroring test: it waits for a primary session on a store file and
// reports what its mirrored session is told, one line each, on standard output.
//
//     MirrorCompanionHelper STORE_PATH
//
// Lines: "listening" once it waits; "mirrored ACTIVITY STATE" when the handler receives a session (raw values);
// "state FROM TO SECONDS" and "event TYPE SECONDS" (seconds since the reference date); "data TEXT" for each item
// received; "disconnected nil" or "disconnected error" — then it exits 0. Data it receives is answered: "pause" makes
// the mirrored session call pause() (which acts on the primary); anything else is sent back as "echo:TEXT".
import Foundation
import OpenHealthKit

func report(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

final class Companion: HKWorkoutSessionDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var sessions: [HKWorkoutSession] = []

    func keep(_ session: HKWorkoutSession) { lock.withLock { sessions.append(session) } }

    func workoutSession(_ workoutSession: HKWorkoutSession, didChangeTo toState: HKWorkoutSessionState,
                        from fromState: HKWorkoutSessionState, date: Date) {
        report("state \(fromState.rawValue) \(toState.rawValue) \(date.timeIntervalSinceReferenceDate)")
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didGenerate event: HKWorkoutEvent) {
        report("event \(event.type.rawValue) \(event.dateInterval.start.timeIntervalSinceReferenceDate)")
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didReceiveDataFromRemoteWorkoutSession data: [Data]) {
        for item in data {
            let text = String(decoding: item, as: UTF8.self)
            report("data \(text)")
            if text == "pause" {
                workoutSession.pause()
            } else {
                workoutSession.sendToRemoteWorkoutSession(data: Data("echo:\(text)".utf8)) { _, _ in }
            }
        }
    }

    func workoutSession(_ workoutSession: HKWorkoutSession, didDisconnectFromRemoteDeviceWithError error: (any Error)?) {
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
