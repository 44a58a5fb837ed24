import Foundation
import OpenHealthKit

/// `record --mirror`: mirrors the recording's session to the companion waiting on the same store (`workout watch`)
/// and sends it the live figures (``LiveWorkoutFigures``, read and encoded by the library) twice a second.
enum MirrorSender {
    /// How often the figures go out.
    static let interval: Duration = .milliseconds(500)

    /// Starts mirroring and returns the task that sends the figures; when no companion is there, says so in one
    /// sentence and returns nil (the recording goes on).
    static func start(session: HKWorkoutSession, builder: HKLiveWorkoutBuilder, store: HKHealthStore) async -> Task<Void, Never>? {
        do {
            try await session.startMirroringToCompanionDevice()
        } catch let error as HKError where error.code == .errorNoData {
            print("No `workout watch` is waiting on this store, so the recording is not mirrored; it goes on.")
            return nil
        } catch {
            print("Mirroring failed (\((error as? HKError)?.message ?? "\(error)")); the recording goes on.")
            return nil
        }
        print("Mirroring to `workout watch` on this store.")
        return Task {
            while !Task.isCancelled {
                let figures = LiveWorkoutFigures(builder: builder, at: store.wallClock())
                // A companion that left stops the sending quietly: the recording does not depend on it.
                do { try await session.sendToRemoteWorkoutSession(data: figures.encoded()) } catch { return }
                do { try await store.clocks.monotonic.sleep(for: interval) } catch { return }
            }
        }
    }
}
