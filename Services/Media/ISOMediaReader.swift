import Foundation
import LightboxProtocol

/// ISO base media files (MP4, QuickTime, HEIC): walks the box tree by seeking, so a large movie's
/// media data is never read. Movies: duration and creation time from `mvhd`, size from the video
/// track's `tkhd`. HEIC: size from the largest `ispe` property.
enum ISOMediaReader {
    /// Seconds from 1904-01-01 (QuickTime's epoch) to 1970-01-01.
    static let epochOffset: Double = 2_082_844_800

    struct Box {
        var type: String
        var start: UInt64
        var contentStart: UInt64
        var end: UInt64
    }

    static func read(_ file: FileBytes, type: UTType) throws -> MediaMetadata {
        var metadata = MediaMetadata(type: type)
        let top = try boxes(in: file, from: 0, to: file.size)
        if type == .heic {
            try readImageSize(file, top: top, into: &metadata)
        } else {
            guard let moov = top.first(where: { $0.type == "moov" }) else {
                throw MediaError(.malformed, "\(file.url.lastPathComponent) has no movie header (moov box)")
            }
            try readMovie(file, moov: moov, into: &metadata)
        }
        return metadata
    }

    static func boxes(in file: FileBytes, from start: UInt64, to end: UInt64) throws -> [Box] {
        var result: [Box] = []
        var offset = start
        while offset + 8 <= end {
            let header = try file.readExactly(at: offset, count: 8, what: "box header")
            var size = UInt64(header.uint32BE(at: 0))
            var contentStart = offset + 8
            if size == 1 {
                size = try file.readExactly(at: offset + 8, count: 8, what: "box header").uint64BE(at: 0)
                contentStart += 8
            } else if size == 0 {
                size = end - offset
            }
            guard size >= contentStart - offset, offset + size <= end else {
                throw MediaError(.malformed, "\(file.url.lastPathComponent) has a box that runs past its container (truncated file?)")
            }
            result.append(Box(type: header.ascii(at: 4, count: 4), start: offset, contentStart: contentStart, end: offset + size))
            offset += size
        }
        return result
    }

    static func child(_ type: String, of box: Box, in file: FileBytes, skipping: UInt64 = 0) throws -> Box? {
        try boxes(in: file, from: box.contentStart + skipping, to: box.end).first { $0.type == type }
    }

    static func readMovie(_ file: FileBytes, moov: Box, into metadata: inout MediaMetadata) throws {
        let children = try boxes(in: file, from: moov.contentStart, to: moov.end)
        if let mvhd = children.first(where: { $0.type == "mvhd" }) {
            let data = try file.readExactly(at: mvhd.contentStart, count: 32, what: "movie header")
            let isVersion1 = data[data.startIndex] == 1
            let created = isVersion1 ? Double(data.uint64BE(at: 4)) : Double(data.uint32BE(at: 4))
            let timescale = Double(isVersion1 ? data.uint32BE(at: 20) : data.uint32BE(at: 12))
            let duration = isVersion1 ? Double(data.uint64BE(at: 24)) : Double(data.uint32BE(at: 16))
            if created > 0 { metadata.creationDate = Date(timeIntervalSince1970: created - epochOffset) }
            if timescale > 0 { metadata.duration = duration / timescale }
        }
        for trak in children where trak.type == "trak" {
            guard let tkhd = try child("tkhd", of: trak, in: file) else { continue }
            let data = try file.readExactly(at: tkhd.contentStart, count: min(Int(tkhd.end - tkhd.contentStart), 96), what: "track header")
            let base = data[data.startIndex] == 1 ? 88 : 76
            guard data.count >= base + 8 else { continue }
            let width = Int(data.uint32BE(at: base) >> 16)
            let height = Int(data.uint32BE(at: base + 4) >> 16)
            if width > 0, height > 0 {
                metadata.pixelWidth = width
                metadata.pixelHeight = height
                break
            }
        }
    }

    static func readImageSize(_ file: FileBytes, top: [Box], into metadata: inout MediaMetadata) throws {
        guard let meta = top.first(where: { $0.type == "meta" }),
              let iprp = try child("iprp", of: meta, in: file, skipping: 4),
              let ipco = try child("ipco", of: iprp, in: file) else {
            throw MediaError(.malformed, "\(file.url.lastPathComponent) has no image properties (meta/iprp/ipco)")
        }
        var best = 0
        for property in try boxes(in: file, from: ipco.contentStart, to: ipco.end) where property.type == "ispe" {
            let data = try file.readExactly(at: property.contentStart, count: 12, what: "image size property")
            let width = Int(data.uint32BE(at: 4))
            let height = Int(data.uint32BE(at: 8))
            if width * height > best {
                best = width * height
                metadata.pixelWidth = width
                metadata.pixelHeight = height
            }
        }
    }
}
