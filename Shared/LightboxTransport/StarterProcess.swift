import Foundation

/// The command that started this process as its child and wants it to end with it: it puts its
/// process id in `LIGHTBOX_EXIT_WITH_PARENT` (`lightbox run` and the benches do). Killed outright
/// (SIGKILL, an out-of-memory kill), such a command cannot stop its children, which would keep
/// serving, and keep their endpoints and the machine's cores, with nobody to stop them. Linux gives
/// an orphan a new parent, so a parent id that is no longer the starter's means it has gone.
public struct StarterProcess: Sendable {
    public static let environmentKey = "LIGHTBOX_EXIT_WITH_PARENT"

    public let pid: pid_t

    /// The starter the environment names, if any.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> StarterProcess? {
        environment[environmentKey].flatMap { pid_t($0) }.map { StarterProcess(pid: $0) }
    }

    /// The environment for a child that should end with this process.
    public static func environmentForChild(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> [String: String] {
        environment.merging([environmentKey: "\(getpid())"]) { _, new in new }
    }

    public var hasGone: Bool { getppid() != pid }
}
