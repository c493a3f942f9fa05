import Foundation

/// Resident memory of a process, read from /proc (Linux).
public enum ProcessMemory {
    /// This process's peak resident set size so far.
    public static func peakResidentBytes() -> Int64 {
        peakResidentBytes(of: getpid()) ?? 0
    }

    /// Peak resident set size (VmHWM) of a running process, or nil if it is gone.
    public static func peakResidentBytes(of pid: Int32) -> Int64? {
        field("VmHWM", of: pid)
    }

    public static func residentBytes(of pid: Int32) -> Int64? {
        field("VmRSS", of: pid)
    }

    /// Restarts the peak measurement of a process (Linux's clear_refs "5").
    public static func resetPeak(of pid: Int32) {
        try? Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/\(pid)/clear_refs"))
    }

    private static func field(_ name: String, of pid: Int32) -> Int64? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            let kilobytes = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { Int64($0) }
            return kilobytes.map { $0 * 1024 }
        }
        return nil
    }
}
