import Foundation
import LightboxClient
import LightboxTransport

/// lightbox-auth and lightbox-picker as child processes, found beside this executable.
public final class ServiceProcesses: @unchecked Sendable {
    public private(set) var auth: Process
    public private(set) var picker: Process
    /// The owner's web surface, when started (`startSurface`).
    public private(set) var surface: Process?
    /// What each service was started with, to start it again (`restart`).
    private var arguments: [Service: [String]] = [:]

    public enum Service: String, CaseIterable {
        case auth = "lightbox-auth", picker = "lightbox-picker", surface = "lightbox-surface"
    }
    /// Helpers a command started beside the services (a bench's baseline server), stopped with them.
    private var helpers: [Process] = []
    /// Ctrl-C and SIGTERM watchers (`stopOnInterrupt`), kept for as long as the processes.
    private var interruptSources: [any DispatchSourceSignal] = []

    /// The folder holding `lightbox`, `lightbox-auth` and `lightbox-picker`.
    public static var binaryFolder: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    }

    /// `serviceArguments` go to both services, `extraAuthArguments` to auth alone, `extraPickerArguments`
    /// to the picker alone.
    public init(data: String, authEndpoint: String, pickerEndpoint: String, importFolders: [String], logLevel: String = "info",
         serviceArguments: [String] = [], extraAuthArguments: [String] = [], extraPickerArguments: [String] = []) throws {
        let common = ["--data", data, "--log-level", logLevel] + serviceArguments
        let authArguments = common + ["--endpoint", authEndpoint] + extraAuthArguments
        auth = try Self.start("lightbox-auth", authArguments)
        var pickerArguments = common + ["--endpoint", pickerEndpoint, "--auth-endpoint", authEndpoint] + extraPickerArguments
        for folder in importFolders { pickerArguments += ["--import", folder] }
        do {
            picker = try Self.start("lightbox-picker", pickerArguments)
        } catch {
            auth.terminate()
            throw error
        }
        arguments = [.auth: authArguments, .picker: pickerArguments]
    }

    public func process(_ service: Service) -> Process? {
        switch service {
        case .auth: auth
        case .picker: picker
        case .surface: surface
        }
    }

    /// Starts a service that exited again, with the arguments it was first started with.
    public func restart(_ service: Service) throws {
        guard let arguments = arguments[service] else { return }
        let process = try Self.start(service.rawValue, arguments)
        switch service {
        case .auth: auth = process
        case .picker: picker = process
        case .surface: surface = process
        }
    }

    private static func start(_ name: String, _ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = binaryFolder.appendingPathComponent(name)
        process.arguments = arguments
        // A service outlives this process only if something else stops it: if this process is
        // killed outright, the service notices and stops itself.
        process.environment = StarterProcess.environmentForChild()
        try process.run()
        return process
    }

    /// Starts lightbox-surface on `listen` against these services.
    public func startSurface(data: String, listen: String, authEndpoint: String, pickerEndpoint: String, logLevel: String) throws {
        let surfaceArguments = ["--data", data, "--listen", listen, "--auth-endpoint", authEndpoint,
                                "--picker-endpoint", pickerEndpoint, "--log-level", logLevel]
        surface = try Self.start("lightbox-surface", surfaceArguments)
        arguments[.surface] = surfaceArguments
    }

    public var isRunning: Bool { auth.isRunning && picker.isRunning && (surface?.isRunning ?? true) }

    /// For commands without a ServiceGroup (the benches): Ctrl-C or SIGTERM stops the services and
    /// then this process, rather than leaving the services running on their own.
    public func stopOnInterrupt() {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { [self] in
                stop()
                exit(128 + signalNumber)
            }
            source.resume()
            interruptSources.append(source)
        }
    }

    /// Stops `process` with the services.
    public func adopt(_ process: Process) {
        helpers.append(process)
    }

    /// How long a service has to stop gracefully before it is killed.
    public static let gracePeriod: Duration = .seconds(15)

    /// SIGTERM to all (graceful stop), then waits for them; one still running after `gracePeriod`
    /// is killed, with a line on stderr, so a hung service cannot hang the command that started it.
    public func stop() {
        let all = helpers + [surface, picker, auth].compactMap { $0 }
        for process in all where process.isRunning { process.terminate() }
        let deadline = ContinuousClock.now + Self.gracePeriod
        // Polled: Foundation's waitUntilExit has no timeout (and spins a core while it waits).
        while all.contains(where: \.isRunning), ContinuousClock.now < deadline {
            usleep(20_000)
        }
        for process in all where process.isRunning {
            FileHandle.standardError.write(Data("\(process.executableURL?.lastPathComponent ?? "a service") did not stop within \(Self.gracePeriod) of SIGTERM; killed it.\n".utf8))
            kill(process.processIdentifier, SIGKILL)
        }
        while all.contains(where: \.isRunning) { usleep(20_000) }
    }
}
