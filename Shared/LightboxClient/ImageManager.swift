import Foundation
import LightboxProtocol
import LightboxTransport

/// An image result, typed so that a cloud-only original cannot be mistaken for a failure or an
/// empty image (PhotoKit reports it only through an info key).
public enum ImageRequestOutcome: Sendable, Equatable {
    case image(RenderedImage)
    /// The original is in the cloud tier and network access was not allowed: no data, no error.
    case inCloud
    case cancelled
}

public struct RenderedImage: Sendable, Equatable {
    public var data: Data
    public var type: UTType?
    public var pixelWidth: Int?
    public var pixelHeight: Int?
    /// A low-quality stand-in that a final image will follow (opportunistic delivery).
    public var isDegraded: Bool
}

/// PHImageManager: images and movies of assets the app may see through its library access.
public struct ImageManager: Sendable {
    let picker: any PickerConnection

    public init(picker: any PickerConnection) {
        self.picker = picker
    }

    /// Every result of an image request: with opportunistic delivery a degraded image first, then
    /// the final one. `progress` reports a download from the cloud tier. The request's id (for
    /// `cancelImageRequest`) is given to `onStart`.
    public func requestImage(
        _ request: ImageRequest, progress: @escaping @Sendable (DownloadProgress) -> Void = { _ in },
        onStart: @Sendable (String) -> Void = { _ in }
    ) -> AsyncThrowingStream<ImageRequestOutcome, Error> {
        let id = UUID().uuidString
        onStart(id)
        let replies = picker.send(.requestImage, request, attachments: [], timeout: .seconds(60), id: id)
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for try await reply in replies {
                        switch reply.status {
                        case .progress:
                            if let step = try? reply.body(DownloadProgress.self) { progress(step) }
                        case .event, .ok:
                            continuation.yield(try Self.outcome(of: reply))
                        default:
                            continue
                        }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The final result of an image request.
    public func requestImage(_ request: ImageRequest) async throws -> ImageRequestOutcome {
        var last: ImageRequestOutcome?
        for try await outcome in requestImage(request) { last = outcome }
        guard let last else { throw LightboxError(.internal, "image.request ended without a result.") }
        return last
    }

    /// Cancels a running request; it ends with `.cancelled`.
    public func cancelImageRequest(_ id: String) async throws {
        _ = try await picker.request(.cancelImage, CancelImageRequest(request: id), as: Empty.self)
    }

    /// Streams a movie into a file the caller owns; `.inCloud` (and no file) when the original is in
    /// the cloud and network access was not allowed. `transcoding` reports the making of a fast or
    /// medium derivative (only the first request for it makes it; later ones stream the cached file).
    public func requestVideo(
        _ request: VideoRequest, to destination: URL, progress: @escaping @Sendable (LoadProgress) -> Void = { _ in },
        transcoding: @escaping @Sendable (TranscodeProgress) -> Void = { _ in }
    ) async throws -> VideoRequestOutcome {
        let id = UUID().uuidString
        let writer = try PartialFile(destination)
        var hasher = SHA256Hasher()
        var received: Int64 = 0
        var quality: String?
        for try await reply in picker.send(.requestVideo, request, attachments: [], timeout: .seconds(30), id: id) {
            switch reply.status {
            case .progress:
                if let step = try? reply.body(TranscodeProgress.self), step.event == "transcode" {
                    transcoding(step)
                } else if let step = try? reply.body(DownloadProgress.self) {
                    progress(LoadProgress(completed: 0, total: step.total))
                }
            case .event:
                quality = (try? reply.body(VideoResultInfo.self))?.deliveredQuality
            case .chunk:
                let header = try reply.body(ChunkHeader.self)
                guard let data = reply.attachments.first, header.offset == received else {
                    throw LightboxError(.internal, "The picker sent a chunk out of order.")
                }
                try writer.write(data)
                hasher.update(data)
                received += Int64(data.count)
                progress(LoadProgress(completed: received, total: header.total))
                picker.post(.streamCredit, StreamCredit(stream: id, credit: 1))
            case .ok:
                if let info = try? reply.body(VideoResultInfo.self), info.isInCloud {
                    writer.discard()
                    return .inCloud
                }
                let completion = try reply.body(StreamCompletion.self)
                guard completion.bytes == received, completion.sha256 == hasher.finalize() else {
                    throw LightboxError(.internal, "The movie's bytes do not match the picker's digest; try again.")
                }
                try writer.commit()
                return .file(destination, deliveredQuality: quality ?? "original")
            default:
                continue
            }
        }
        throw LightboxError(.internal, "video.request ended without a final reply.")
    }

    static func outcome(of reply: IncomingReply) throws -> ImageRequestOutcome {
        let info = try reply.body(ImageResultInfo.self)
        if info.isCancelled { return .cancelled }
        if info.isInCloud { return .inCloud }
        guard let data = reply.attachments.first else {
            throw LightboxError(.internal, "An image result came without its image.")
        }
        return .image(RenderedImage(data: data, type: info.type, pixelWidth: info.pixelWidth, pixelHeight: info.pixelHeight,
                                    isDegraded: info.isDegraded))
    }
}

public enum VideoRequestOutcome: Sendable, Equatable {
    case file(URL, deliveredQuality: String)
    case inCloud
}

/// A file written beside its destination and moved into place only when complete.
final class PartialFile {
    let destination: URL
    let partial: URL
    private let handle: FileHandle

    init(_ destination: URL) throws {
        self.destination = destination
        partial = destination.deletingLastPathComponent().appendingPathComponent(".\(destination.lastPathComponent).partial-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: partial.path, contents: nil) else {
            throw LightboxError(.notFound, "Cannot create a file in \(destination.deletingLastPathComponent().path); does the folder exist and is it writable?")
        }
        handle = try FileHandle(forWritingTo: partial)
    }

    deinit {
        try? handle.close()
        try? FileManager.default.removeItem(at: partial)
    }

    func write(_ data: Data) throws { try handle.write(contentsOf: data) }

    /// The partial file's descriptor, for writers that copy descriptor to descriptor.
    var descriptor: Int32 { handle.fileDescriptor }

    func discard() { try? FileManager.default.removeItem(at: partial) }

    /// rename(2) replaces an existing file atomically: the caller never sees a half-written one.
    func commit() throws {
        try handle.close()
        guard rename(partial.path, destination.path) == 0 else {
            throw LightboxError(.internal, "Cannot move the loaded file to \(destination.path): \(String(cString: strerror(errno))).")
        }
    }
}
