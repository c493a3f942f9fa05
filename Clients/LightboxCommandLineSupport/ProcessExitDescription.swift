import Foundation

extension Process {
    /// How an exited process ended, for a sentence: "was killed by signal 11 (SIGSEGV)" or
    /// "exited with status 1".
    public var exitDescription: String {
        let status = terminationStatus
        guard terminationReason == .uncaughtSignal else { return "exited with status \(status)" }
        let name = strsignal(status).map { String(cString: $0) } ?? "unknown"
        return "was killed by signal \(status) (\(name))"
    }
}
