import Synchronization

/// A value behind a lock, shared by reference between a session and the callbacks it hands out (a `Mutex` is
/// not copyable, so closures and parameters cannot carry one).
package final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>

    package init(_ value: Value) { mutex = Mutex(value) }

    package func withLock<Result: Sendable, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
        try mutex.withLock { (value: inout Value) throws(E) -> Result in try body(&value) }
    }
}
