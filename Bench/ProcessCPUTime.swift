import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// CPU seconds (user + system) that processes used: a measure of work that a busy machine does not
/// stretch the way it stretches elapsed time, printed beside the elapsed times.
enum ProcessCPUTime {
    /// What the running process `pid` has used so far (its threads included), from /proc/PID/stat.
    static func seconds(of pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return nil }
        // After the command name: state, ppid, … with utime and stime the 12th and 13th.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// What this process's children that have ended and been waited for used, all together.
    static func endedChildrenSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}
