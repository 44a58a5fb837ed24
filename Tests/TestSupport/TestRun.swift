import Glibc
import TestRunReaper

/// The test run this process is: the mark every process it starts inherits, and the reaper that kills those
/// processes once this one is gone (Tests/TestRunReaper/TestRunReaper.c).
public enum TestRun {
    /// `OHK_TEST_RUN` as this process set it before main; nil when the reaper could not be started.
    public static var mark: String? { getenv("OHK_TEST_RUN").map { String(cString: $0) } }

    /// The reaper's process identifier, or nil.
    public static var reaper: pid_t? {
        let pid = ohk_test_run_reaper()
        return pid > 0 ? pid : nil
    }
}
