import Foundation

/// A one-line progress bar on standard error, redrawn at most ten times a second. When standard
/// error is not a terminal it prints only the final line.
public final class ProgressBar: @unchecked Sendable {
    private let label: String
    private let isTerminal = isatty(STDERR_FILENO) == 1
    private let started = Date()
    private var lastDraw = Date.distantPast
    private let lock = NSLock()

    public init(_ label: String) {
        self.label = label
    }

    /// Byte progress: shows sizes and throughput.
    public func update(bytes completed: Int64, of total: Int64) {
        let seconds = max(Date().timeIntervalSince(started), 0.001)
        let rate = Double(completed) / seconds / 1_000_000
        draw(fraction: total > 0 ? Double(completed) / Double(total) : 1,
             detail: String(format: "%.1f/%.1f MB  %.1f MB/s", Double(completed) / 1e6, Double(total) / 1e6, rate),
             isDone: completed >= total)
    }

    /// Item progress: "3/7 harbour.jpg".
    public func update(items completed: Int, of total: Int, current: String) {
        draw(fraction: total > 0 ? Double(completed) / Double(total) : 1, detail: "\(completed)/\(total) \(current)",
             isDone: completed >= total)
    }

    private func draw(fraction: Double, detail: String, isDone: Bool) {
        lock.lock()
        defer { lock.unlock() }
        let now = Date()
        guard isDone || (isTerminal && now.timeIntervalSince(lastDraw) >= 0.1) else { return }
        lastDraw = now
        let width = 30
        let filled = Int((min(max(fraction, 0), 1) * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let line = "\(label) [\(bar)] \(Int(fraction * 100))% \(detail)"
        FileHandle.standardError.write(Data(((isTerminal ? "\r\u{1B}[K" : "") + line + (isDone ? "\n" : "")).utf8))
    }
}
