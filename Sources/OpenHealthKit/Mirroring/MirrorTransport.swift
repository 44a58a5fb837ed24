import Foundation
import HealthKitModel
import UnixSockets
import WorkoutEngine

/// A reliable, ordered byte stream to one peer: what the mirroring protocol (``MirrorFrame``) runs over.
///
/// `read()` returns the bytes that have arrived, and an empty array once the peer closed its end; it throws when the
/// connection breaks. A network transport (TCP, TLS) conforms the same way; the frames do not change.
protocol MirrorByteStream: Sendable {
    func write(_ bytes: [UInt8]) async throws
    func read(capacity: Int) async throws -> [UInt8]
    func close()
}

extension UnixStreamConnection: MirrorByteStream {}

/// Where a store's companion waits for mirrored sessions: a Unix stream socket beside the store file,
/// `<store path>.mirror`, mode 0600 (only the store's owner connects). OpenHealthKit.
enum MirrorRendezvous {
    /// The socket path for a store file.
    static func socketPath(forStore path: String) -> String { path + ".mirror" }

    /// Connects to the companion of the store at `path`; `errorNoData` when none is listening.
    static func connect(store path: String) throws -> any MirrorByteStream {
        let socket = socketPath(forStore: path)
        do {
            return try UnixStreamConnection.connect(path: socket)
        } catch let error as SocketError where error.code == .connectionFailed {
            throw HKError(
                .errorNoData,
                "No companion is listening for mirrored workouts on the store \(path) (no store there has set workoutSessionMirroringStartHandler)."
            )
        } catch {
            throw HKError(.unknownError, "Connecting to the companion at \(socket) failed: \(error)")
        }
    }

    /// Listens for primaries of the store at `path`.
    static func listen(store path: String) throws -> UnixStreamListener {
        let socket = socketPath(forStore: path)
        do {
            return try UnixStreamListener(path: socket, mode: 0o600)
        } catch let error as SocketError where error.code == .busy {
            throw HKError(
                .errorInvalidArgument,
                "Another companion is already waiting for mirrored workouts on the store \(path).")
        } catch {
            throw HKError(.unknownError, "Waiting for mirrored workouts at \(socket) failed: \(error)")
        }
    }

    /// Reads from `stream` until at least one whole frame has arrived: returns the frames and the decoder holding
    /// any partial frame that followed, for the link to go on with.
    static func firstFrames(from stream: any MirrorByteStream) async throws -> ([MirrorFrame], MirrorFrameDecoder) {
        var decoder = MirrorFrameDecoder()
        var frames: [MirrorFrame] = []
        while frames.isEmpty {
            let bytes = try await stream.read(capacity: 65_536)
            if bytes.isEmpty {
                throw HKError(.errorNoData, "The other side closed the mirroring connection before it began.")
            }
            do { frames = try decoder.append(bytes) } catch {
                throw HKError(.errorInvalidArgument, "The other side sent a damaged mirroring frame: \(error).")
            }
        }
        return (frames, decoder)
    }
}
