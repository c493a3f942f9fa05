import ArgumentParser
import LightboxTransport

extension AsyncParsableCommand {
    /// ArgumentParser's `main()`, with the files this process creates private whatever the umask
    /// (keys and app files in the data folder).
    public static func mainWithPrivateFiles() async {
        PrivateDataFolder.restrictNewFiles()
        do {
            var command = try parseAsRoot()
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
