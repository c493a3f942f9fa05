import Foundation

/// Many distinct photos from one: a JPEG with a numbered comment (COM) segment put after its SOI
/// marker has the same pixels and headers but bytes (and so a content hash, and an asset) of its
/// own. For benches and tests that import thousands of ordinary photos.
public enum NumberedJPEG {
    /// `jpeg` with a comment naming `number`; nil when `jpeg` does not start with SOI.
    public static func make(from jpeg: Data, number: Int) -> Data? {
        guard jpeg.count >= 2, jpeg.starts(with: [0xFF, 0xD8]) else { return nil }
        let comment = Data("Lightbox photo \(number)".utf8)
        let length = UInt16(comment.count + 2)
        return Data([0xFF, 0xD8, 0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)]) + comment + jpeg.dropFirst(2)
    }

    /// Writes `count` distinct copies of `jpeg` in folders of 1,000 below `folder`; returns the folders.
    public static func write(_ count: Int, from jpeg: Data, into folder: URL, progress: (Int) -> Void = { _ in }) throws -> [URL] {
        var folders: [URL] = []
        for number in 0..<count {
            if number % 1000 == 0 {
                folders.append(folder.appendingPathComponent(String(format: "%04d", number / 1000)))
                try FileManager.default.createDirectory(at: folders[folders.count - 1], withIntermediateDirectories: true)
            }
            guard let bytes = make(from: jpeg, number: number) else {
                throw MediaError(.unsupportedFormat, "The source of numbered photos must be a JPEG")
            }
            try bytes.write(to: folders[folders.count - 1].appendingPathComponent(String(format: "photo-%07d.jpg", number)))
            if number % 500 == 0 || number == count - 1 { progress(number + 1) }
        }
        return folders
    }
}
