import Foundation
import LightboxProtocol
import LightboxTransport
import Logging

/// An app's way in: one call connects to both services with the app's CURVE key and hands out the
/// picker, the photo library and the image manager (PHPickerViewController, PHPhotoLibrary and
/// PHImageManager).
///
/// ```swift
/// let lightbox = try await Lightbox.connect(app: "demo")
/// lightbox.picker.maxSelectionCount = 3          // on the main actor: the picker is an @Observable model
/// let selection = try await lightbox.picker.present()
/// ```
public struct Lightbox: Sendable {
    /// Environment variables `connect` reads.
    public enum Environment {
        /// The data directory holding the services' public keys and `apps/<id>.key` (default `./var`).
        public static let data = "LIGHTBOX_DATA"
        public static let authEndpoint = "LIGHTBOX_AUTH_ENDPOINT"
        /// One picker, or several of one library separated by commas: the client fails over between them.
        public static let pickerEndpoint = "LIGHTBOX_PICKER_ENDPOINT"
        /// A key file of the app's own, instead of `DATA/apps/<id>.key`.
        public static let appKey = "LIGHTBOX_APP_KEY"
    }

    public let app: String
    /// The app's picker model (PhotosPicker's shape); `makePicker()` makes more.
    public let picker: PhotoPicker
    public let library: PhotoLibrary
    public let imageManager: ImageManager
    private let connections: [any PickerConnection]

    /// Connects as `app` with its key pair, to the services named by the environment (or the defaults:
    /// `./var`, `tcp://127.0.0.1:7711` and `:7712`). `data` overrides `LIGHTBOX_DATA`.
    public static func connect(
        app: String, data: URL? = nil, environment: [String: String] = ProcessInfo.processInfo.environment,
        timeout: Duration = .seconds(10), logger: Logger = Logger(label: "lightbox.client")
    ) async throws -> Lightbox {
        let directory = ServiceDirectory(
            dataDirectory: data ?? URL(fileURLWithPath: environment[Environment.data] ?? "var"),
            authEndpoint: environment[Environment.authEndpoint] ?? ServiceDirectory.defaultAuthEndpoint,
            pickerEndpoint: environment[Environment.pickerEndpoint] ?? ServiceDirectory.defaultPickerEndpoint)
        let keyPair: CurveKeyPair
        do {
            keyPair = try environment[Environment.appKey].map { try CurveKeyPair.load(from: URL(fileURLWithPath: $0)) }
                ?? directory.appKeyPair(app)
        } catch {
            throw LightboxError(.notFound, "No key for app \"\(app)\": register it with `lightbox app register \(app) --name …` "
                                + "(it writes \(directory.keys.appKeyURL(app).path)), or set \(Environment.appKey) to its key file.")
        }
        let auth = try await directory.connectToAuth(as: keyPair, timeout: timeout, logger: logger)
        let picker = try await directory.connectToPickers(as: keyPair, timeout: timeout, logger: logger)
        return Lightbox(app: app, picker: PhotoPicker(connection: picker), library: PhotoLibrary(auth: auth, picker: picker),
                        imageManager: ImageManager(picker: picker), connections: [auth, picker])
    }

    /// Another picker model on the same connection, which presents and keeps its selection apart
    /// from `picker` (a second PhotosPicker in the same app).
    public func makePicker() -> PhotoPicker {
        PhotoPicker(connection: picker.connection)
    }

    /// Closes both connections; running requests end with an error.
    public func close() {
        for connection in connections { connection.close() }
    }
}
