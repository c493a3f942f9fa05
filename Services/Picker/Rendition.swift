import Foundation
import LightboxProtocol
import Media

/// A still rendition as a request gets it: its bytes, and the type and pixel size read from them.
struct Rendition: Sendable {
    var data: Data
    var type: UTType?
    var width: Int?
    var height: Int?

    /// The rendition `data`, read from `file`; its type and size are read from its bytes.
    init(_ data: Data, of file: URL) {
        let metadata = try? MetadataReader.read(fileAt: file, contents: data)
        self.init(data: data, type: metadata?.type, width: metadata?.pixelWidth, height: metadata?.pixelHeight)
    }

    init(data: Data, type: UTType?, width: Int?, height: Int?) {
        self.data = data
        self.type = type
        self.width = width
        self.height = height
    }

    func info(isDegraded: Bool) -> ImageResultInfo {
        ImageResultInfo(isDegraded: isDegraded, type: type, pixelWidth: width, pixelHeight: height)
    }
}
