import Logging

/// Logging set-up for the executables: structured lines on standard error at the chosen level.
public enum ServiceLogging {
    public static func bootstrap(level: Logger.Level) {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}

extension Logger.Level {
    /// Parses `trace`, `debug`, `info`, `notice`, `warning`, `error` or `critical`.
    public init?(name: String) {
        self.init(rawValue: name.lowercased())
    }
}
