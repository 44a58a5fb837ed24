import Foundation

/// Which program listens on a TCP port, from the kernel's socket tables (`/proc/net/tcp`, `/proc/net/tcp6`: the
/// listening socket's inode) and the processes' open files (`/proc/PID/fd`, a link to `socket:[INODE]`), for a
/// "port in use" sentence. Only processes this user may look into are found (another user's: nil).
enum PortHolder {
    /// The name and pid of a process listening on `port`, or nil when none can be found.
    static func find(port: Int, proc: String = "/proc") -> (name: String, pid: Int32)? {
        let inodes = listeningInodes(port: port, proc: proc)
        guard !inodes.isEmpty else { return nil }
        let manager = FileManager.default
        let processes = (try? manager.contentsOfDirectory(atPath: proc))?.compactMap { Int32($0) } ?? []
        for pid in processes.sorted() {
            let folder = "\(proc)/\(pid)/fd"
            guard let descriptors = try? manager.contentsOfDirectory(atPath: folder) else { continue }
            for descriptor in descriptors {
                guard let target = try? manager.destinationOfSymbolicLink(atPath: "\(folder)/\(descriptor)"),
                    target.hasPrefix("socket:["), inodes.contains(String(target.dropFirst(8).dropLast()))
                else { continue }
                let name = (try? String(contentsOfFile: "\(proc)/\(pid)/comm", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                return (name.flatMap { $0.isEmpty ? nil : $0 } ?? "pid \(pid)", pid)
            }
        }
        return nil
    }

    /// The inodes of the sockets listening (state 0A) on `port`, IPv4 and IPv6.
    static func listeningInodes(port: Int, proc: String = "/proc") -> Set<String> {
        var inodes = Set<String>()
        let wanted = String(format: "%04X", port)
        for table in ["tcp", "tcp6"] {
            guard let text = try? String(contentsOfFile: "\(proc)/net/\(table)", encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                // sl, local address:port, remote address:port, state, queues, timer, retransmits, uid, timeout, inode
                guard fields.count > 9, fields[3] == "0A", fields[1].split(separator: ":").last == Substring(wanted)
                else { continue }
                inodes.insert(String(fields[9]))
            }
        }
        return inodes
    }
}
