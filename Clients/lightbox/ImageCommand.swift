import ArgumentParser
import Foundation
import LightboxClient
import LightboxCommandLineSupport
import LightboxProtocol

extension ImageContentMode: ExpressibleByArgument {}
extension ImageDeliveryMode: ExpressibleByArgument {}
extension ImageVersion: ExpressibleByArgument {}

/// `lightbox video --quality`: PHVideoRequestOptionsDeliveryMode by what it gives.
enum VideoQuality: String, ExpressibleByArgument, CaseIterable {
    case fast, medium, high

    var deliveryMode: VideoDeliveryMode {
        switch self {
        case .fast: .fastFormat
        case .medium: .mediumQualityFormat
        case .high: .highQualityFormat
        }
    }
}
extension MetadataStripping: ExpressibleByArgument {}

struct ImageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "image",
        abstract: "Request an image of an asset as an app (PHImageManager; needs library access).",
        discussion: "With opportunistic delivery the degraded image is written to OUT.degraded first, then the final one to OUT.")

    @OptionGroup var services: ServiceOptions
    @Option(help: "The app.") var app: String
    @Argument(help: "The asset identifier.") var asset: String
    @Option(help: "Target size WIDTHxHEIGHT in pixels (default: full size).") var size: String?
    @Option(help: "fit or fill.") var mode: ImageContentMode = .fit
    @Option(help: "opportunistic, highQualityFormat or fastFormat.") var delivery: ImageDeliveryMode = .opportunistic
    @Option(help: "current or original.") var version: ImageVersion = .current
    @Flag(help: "Allow downloading the original from the cloud tier.") var network = false
    @Option(help: "The file to write.") var out: String

    func run() async throws {
        var width: Int?
        var height: Int?
        if let size {
            let parts = size.split(separator: "x").compactMap { Int($0) }
            guard parts.count == 2 else { throw ValidationError("--size takes WIDTHxHEIGHT, e.g. 256x256") }
            (width, height) = (parts[0], parts[1])
        }
        let manager = ImageManager(picker: try await services.pickerAsApp(app))
        let request = ImageRequest(asset: asset, targetWidth: width, targetHeight: height, contentMode: mode, deliveryMode: delivery,
                                   version: version, isNetworkAccessAllowed: network)
        let bar = ProgressBar("downloading")
        for try await outcome in manager.requestImage(request, progress: { bar.update(bytes: $0.completed, of: $0.total) }) {
            switch outcome {
            case .inCloud:
                print("in the cloud: no image (allow downloads with --network)")
            case .cancelled:
                print("cancelled")
            case .image(let image):
                let path = image.isDegraded ? out + ".degraded" : out
                try image.data.write(to: URL(fileURLWithPath: path))
                print("\(path)\t\(image.type?.identifier ?? "?")\t\(image.pixelWidth ?? 0)x\(image.pixelHeight ?? 0)\(image.isDegraded ? "\tdegraded" : "")")
            }
        }
    }
}

struct VideoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "video", abstract: "Request a movie as a file, as an app (needs library access).")

    @OptionGroup var services: ServiceOptions
    @Option(help: "The app.") var app: String
    @Argument(help: "The asset identifier.") var asset: String
    @Option(help: "fast (at most 360p, H.264), medium (at most 720p) or high (the original).") var quality: VideoQuality = .high
    @Flag(help: "Allow downloading the original from the cloud tier.") var network = false
    @Option(help: "The file to write.") var out: String

    func run() async throws {
        let manager = ImageManager(picker: try await services.pickerAsApp(app))
        let bar = ProgressBar("loading")
        let transcodeBar = ProgressBar("transcoding")
        let outcome = try await manager.requestVideo(
            VideoRequest(asset: asset, deliveryMode: quality.deliveryMode, isNetworkAccessAllowed: network), to: URL(fileURLWithPath: out),
            progress: { bar.update(bytes: $0.completed, of: $0.total) },
            transcoding: { transcodeBar.update(items: Int($0.completed.rounded()), of: Int($0.total.rounded()), current: "s of the movie") })
        switch outcome {
        case .inCloud: print("in the cloud: no file (allow downloads with --network)")
        case .file(let url, let quality): print("\(url.path)\t\(quality)")
        }
    }
}
