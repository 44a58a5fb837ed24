import Foundation

extension LiveRecording {
    /// How often the live figures go out to a companion.
    static let mirroringInterval: Duration = .milliseconds(500)
    /// How often a recording without a companion looks for one.
    static let companionRetryInterval: Duration = .seconds(1)

    /// Mirrors the session to the companion waiting on the same store and sends it the live figures
    /// (``LiveWorkoutFigures``) twice a second until ``end()``. OpenHealthKit.
    ///
    /// A companion may come and go: while none is mirrored to, the recording tries again every second (on the store's
    /// monotonic clock), so a companion started later, or again after it left, joins.
    public func startMirroring() async -> MirroringStart {
        let first = await attemptMirroring()
        if case .failed = first { return first }
        let monotonic = healthStore.clocks.monotonic
        let (session, builder, store) = (session, builder, healthStore)
        setMirroring(
            Task {
                var mirroring = first == .mirroring
                while !Task.isCancelled {
                    if mirroring {
                        let now = store.wallClock()
                        var figures = LiveWorkoutFigures(builder: builder, at: now)
                        figures.plan = self.planStatus(at: now)
                        // A companion that left is looked for again: the recording does not depend on it.
                        do { try await session.sendToRemoteWorkoutSession(data: figures.encoded()) } catch {
                            mirroring = false
                        }
                    }
                    let pause = mirroring ? Self.mirroringInterval : Self.companionRetryInterval
                    do { try await monotonic.sleep(for: pause) } catch { return }
                    if !mirroring, !Task.isCancelled { mirroring = await attemptMirroring() == .mirroring }
                }
            })
        return first
    }

    private func attemptMirroring() async -> MirroringStart {
        do {
            try await session.startMirroringToCompanionDevice()
            return .mirroring
        } catch let error as HKError where error.code == .errorNoData {
            return .noCompanion
        } catch {
            return .failed((error as? HKError)?.message ?? "\(error)")
        }
    }
}
