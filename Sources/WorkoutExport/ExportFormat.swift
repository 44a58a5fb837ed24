import Foundation

/// The formats a workout exports to.
public enum ExportFormat: String, CaseIterable, Sendable {
    case fit, tcx, gpx

    /// The file's bytes. GPX needs a route (a track point needs a position): without one it throws.
    public func encode(_ data: WorkoutExportData) throws -> [UInt8] {
        switch self {
        case .fit: return FITActivityWriter.encode(data)
        case .tcx: return Array(TCXWriter.document(data).utf8)
        case .gpx:
            guard data.hasRoute else {
                throw ExportError(
                    "The workout \(data.uuid.uuidString) has no route, so it has no GPX (a GPX track point needs a position); export it as FIT or TCX."
                )
            }
            return Array(GPXWriter.document(data).utf8)
        }
    }
}
