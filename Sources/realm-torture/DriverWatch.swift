import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Makes a child process (writer, reader, checker) exit when its driver dies, however it dies —
/// a SIGKILL, a crash, a Ctrl-C — so that no torture child goes on writing for hours after its
/// run: the driver passes its pid in ``variable``, and a thread of the child checks every
/// 100 ms that it is still the parent (a child whose parent died is re-parented, and
/// `getppid()` changes). A thread of its own, not a task: the child's tasks may all be waiting
/// on the file. A process started by hand (no variable) is not watched.
enum DriverWatch {
    static let variable = "REALM_TORTURE_DRIVER_PID"

    static func start() {
        guard let value = ProcessInfo.processInfo.environment[variable], let driver = pid_t(value) else { return }
        Thread.detachNewThread {
            while getppid() == driver { usleep(100_000) }
            _exit(5)
        }
    }
}
