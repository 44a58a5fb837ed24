import Foundation
import OpenHealthKit

/// `record --mirror`: mirrors the recording's session to the companion waiting on the same store (`workout watch`)
/// and sends it the live figures (``LiveWorkoutFigures``, read and encoded by the library) twice a second.
///
/// A watch may come and go: while none is mirrored to, the sender tries again every second (on the store's monotonic
/// clock), so a watch started after the recording, or started again after it left, joins it.
enum MirrorSender {
    /// How often the figures go out.
    static let interval: Duration = .milliseconds(500)
    /// How often a recording without a companion looks for one.
    static let retryInterval: Duration = .seconds(1)

    private enum Attempt: Equatable {
        case mirroring
        case noCompanion
        case failed(String)
    }

    private static func attempt(_ session: HKWorkoutSession) async -> Attempt {
        do {
            try await session.startMirroringToCompanionDevice()
            return .mirroring
        } catch let error as HKError where error.code == .errorNoData {
            return .noCompanion
        } catch {
            return .failed((error as? HKError)?.message ?? "\(error)")
        }
    }

    /// Starts mirroring, says in one sentence whether a companion was there, and returns the task that sends the
    /// figures and looks for a companion when there is none; nil when mirroring cannot work at all.
    static func start(
        session: HKWorkoutSession, builder: HKLiveWorkoutBuilder, store: HKHealthStore
    ) async -> Task<Void, Never>? {
        let first = await attempt(session)
        switch first {
        case .mirroring:
            print("Mirroring to `workout watch` on this store.")
        case .noCompanion:
            print("No `workout watch` is waiting on this store yet; one started later is mirrored to.")
        case .failed(let message):
            print("Mirroring failed (\(message)); the recording goes on.")
            return nil
        }
        let monotonic = store.clocks.monotonic
        return Task {
            var mirroring = first == .mirroring
            while !Task.isCancelled {
                if mirroring {
                    let figures = LiveWorkoutFigures(builder: builder, at: store.wallClock())
                    // A companion that left is looked for again: the recording does not depend on it.
                    do { try await session.sendToRemoteWorkoutSession(data: figures.encoded()) } catch {
                        mirroring = false
                    }
                }
                do { try await monotonic.sleep(for: mirroring ? interval : retryInterval) } catch { return }
                if !mirroring, !Task.isCancelled { mirroring = await attempt(session) == .mirroring }
            }
        }
    }
}
