import Foundation
import HealthKitModel
import WorkoutEngine

#if canImport(Glibc)
import Glibc
#endif

/// Where a health store lives, and how its file is made private.
enum StoreLocation {
    /// The default store's path: `$OPENHEALTHKIT_STORE`, else `$XDG_DATA_HOME/openhealthkit/health.sqlite`,
    /// else `~/.local/share/openhealthkit/health.sqlite`.
    static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let explicit = environment["OPENHEALTHKIT_STORE"], !explicit.isEmpty { return explicit }
        let dataHome: String
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            dataHome = xdg
        } else {
            let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            dataHome = (home as NSString).appendingPathComponent(".local/share")
        }
        return (dataHome as NSString).appendingPathComponent("openhealthkit/health.sqlite")
    }

    /// Makes sure the store's folder exists (created 0700) and the file is a regular file we can open, creating it
    /// 0600 when missing. Throws `errorDatabaseInaccessible` with a sentence saying what is wrong; never
    /// touches an existing file's contents.
    static func prepare(path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try makeDirectory(directory)
        }
        var info = stat()
        if stat(path, &info) == 0 {
            if (info.st_mode & S_IFMT) == S_IFDIR {
                throw HKError(.errorDatabaseInaccessible, "The health store path \(path) is a directory, not a file.")
            }
            if access(path, R_OK | W_OK) != 0 {
                throw HKError(
                    .errorDatabaseInaccessible,
                    "The health store \(path) cannot be read and written (\(String(cString: strerror(errno)))).")
            }
            return
        }
        let fd = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0o600)
        if fd < 0 {
            if errno == EEXIST { return }
            throw HKError(
                .errorDatabaseInaccessible,
                "The health store \(path) cannot be created (\(String(cString: strerror(errno)))).")
        }
        close(fd)
    }

    private static func makeDirectory(_ directory: String) throws {
        var info = stat()
        if stat(directory, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR else {
                throw HKError(.errorDatabaseInaccessible, "The health store's folder \(directory) is not a directory.")
            }
            return
        }
        let parent = (directory as NSString).deletingLastPathComponent
        if !parent.isEmpty && parent != directory {
            try makeDirectory(parent)
        }
        if mkdir(directory, 0o700) != 0 && errno != EEXIST {
            throw HKError(
                .errorDatabaseInaccessible,
                "The health store's folder \(directory) cannot be created (\(String(cString: strerror(errno)))).")
        }
    }
}
