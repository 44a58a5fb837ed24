import Dispatch
import Foundation
import Testing

// Tests that wait synchronously (for a child process, a pipe, a browser, a socket) run off Swift's cooperative
// threads. The cooperative pool has one thread per core, two on the machines these tests run on: two tests blocked in
// `poll()` or `waitpid()` there stop every other test of the process, and a child process that is waiting for this
// process (a simulated sensor it serves, a store it answers) then waits for nothing until its time limit. That is how
// a full run once had 366 unrelated tests exceed their time limits at once.

/// The executor that runs the tests of a suite marked ``Trait/blockingWaits``: each job on a serial Dispatch queue of
/// its own, which Dispatch gives a thread from its overcommitting pool (a thread is added when every one is busy, and
/// reused after), so a job may block without holding a cooperative thread.
public final class BlockingWaitsExecutor: TaskExecutor {
    public static let shared = BlockingWaitsExecutor()

    private static let marker = "org.openhealthkit.tests.blocking-waits"

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        DispatchQueue(label: Self.marker).async {
            Thread.current.threadDictionary[Self.marker] = true
            defer { Thread.current.threadDictionary[Self.marker] = nil }
            job.runSynchronously(on: executor)
        }
    }

    /// Whether the calling code runs on this executor, where it may block.
    public static var isCurrentThread: Bool { Thread.current.threadDictionary[marker] as? Bool == true }
}

/// Runs each test of a suite (or one test) with ``BlockingWaitsExecutor`` as its task executor: the test's own code,
/// and every nonisolated async function it calls, run there. Actors it calls keep their own executors.
public struct BlockingWaitsTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withTaskExecutorPreference(BlockingWaitsExecutor.shared) { try await function() }
    }
}

extension Trait where Self == BlockingWaitsTrait {
    /// The test (or every test of the suite) waits synchronously somewhere, so it runs off the cooperative threads.
    public static var blockingWaits: Self { BlockingWaitsTrait() }
}

/// Fails the current test when the caller, which is about to block, runs in a task but not on
/// ``BlockingWaitsExecutor``: its suite needs the `.blockingWaits` trait. (A thread of its own, outside any task, may
/// block.) Called by every helper here that blocks.
public func expectMayBlock(_ what: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation) {
    guard withUnsafeCurrentTask(body: { $0 != nil }), !BlockingWaitsExecutor.isCurrentThread else { return }
    Issue.record(
        Comment(
            rawValue: "\(what()) blocks its thread, and this test runs on a cooperative thread: mark its suite "
                + "`.blockingWaits` (Tests/TestSupport/BlockingWaits.swift)"),
        sourceLocation: sourceLocation)
}
