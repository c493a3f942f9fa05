import Foundation

/// Writes a structurally valid MP4 of any size, filled with pseudo-random bytes, without holding it
/// in memory: ftyp, a moov with mvhd and one H.264 video track whose sample tables are empty, then
/// mdat. Demuxers (libavformat, ffprobe) see a 0-sample video track with its size and duration.
/// For benchmarks and tests that need a large asset the catalog accepts.
public enum SyntheticMovie {
    public static func write(to url: URL, mediaBytes: Int64, width: Int = 1920, height: Int = 1080,
                             durationSeconds: Int = 60, seed: UInt64 = 1) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw MediaError(.unreadable, "Cannot create \(url.path)")
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.write(contentsOf: box("ftyp", Data("isom".utf8) + be32(512) + Data("isommp41".utf8)))
        let created: UInt32 = 3_800_000_000  // 2024-05-30, in seconds since 1904
        var mvhd = Data([0, 0, 0, 0]) + be32(created) + be32(created) + be32(1000) + be32(UInt32(durationSeconds * 1000))
        mvhd += be32(0x0001_0000) + Data([1, 0]) + Data(count: 10) + identityMatrix + Data(count: 24) + be32(2)
        var tkhd = Data([0, 0, 0, 3]) + be32(created) + be32(created) + be32(1) + be32(0) + be32(UInt32(durationSeconds * 1000))
        tkhd += Data(count: 8) + Data(count: 4) + Data(count: 4) + identityMatrix
        tkhd += be32(UInt32(width) << 16) + be32(UInt32(height) << 16)
        let track = box("trak", box("tkhd", tkhd) + media(width: width, height: height, created: created, durationSeconds: durationSeconds))
        try handle.write(contentsOf: box("moov", box("mvhd", mvhd) + track))
        // mdat with a 64-bit size so it may exceed 4 GiB.
        try handle.write(contentsOf: be32(1) + Data("mdat".utf8) + be64(UInt64(mediaBytes) + 16))
        var generator = SplitMix64(seed: seed)
        var remaining = mediaBytes
        var chunk = Data(count: 1 << 20)
        while remaining > 0 {
            let count = Int(min(remaining, Int64(chunk.count)))
            chunk.withUnsafeMutableBytes { raw in
                let words = raw.bindMemory(to: UInt64.self)
                for index in 0..<(count + 7) / 8 where index < words.count { words[index] = generator.next() }
            }
            try handle.write(contentsOf: chunk.prefix(count))
            remaining -= Int64(count)
        }
    }

    /// mdia: media header, a video handler, and a sample description saying H.264 at `width`×`height`
    /// (where demuxers take a track's size from), with empty sample tables.
    static func media(width: Int, height: Int, created: UInt32, durationSeconds: Int) -> Data {
        let mdhd = Data([0, 0, 0, 0]) + be32(created) + be32(created) + be32(1000) + be32(UInt32(durationSeconds * 1000))
            + Data([0x55, 0xC4, 0, 0])  // language "und"
        let hdlr = Data(count: 8) + Data("vide".utf8) + Data(count: 12) + Data("VideoHandler\0".utf8)
        let vmhd = Data([0, 0, 0, 1]) + Data(count: 8)
        let dinf = box("dinf", box("dref", Data(count: 4) + be32(1) + box("url ", Data([0, 0, 0, 1]))))
        var sampleEntry = Data(count: 6) + Data([0, 1]) + Data(count: 16)
        sampleEntry += Data([UInt8(width >> 8 & 0xFF), UInt8(width & 0xFF), UInt8(height >> 8 & 0xFF), UInt8(height & 0xFF)])
        sampleEntry += be32(0x0048_0000) + be32(0x0048_0000) + Data(count: 4) + Data([0, 1]) + Data(count: 32) + Data([0, 0x18, 0xFF, 0xFF])
        let stsd = Data(count: 4) + be32(1) + box("avc1", sampleEntry)
        let emptyTable = Data(count: 8)  // version and flags, no entries
        let stbl = box("stbl", box("stsd", stsd) + box("stts", emptyTable) + box("stsc", emptyTable)
            + box("stsz", Data(count: 12)) + box("stco", emptyTable))
        return box("mdia", box("mdhd", mdhd) + box("hdlr", hdlr) + box("minf", box("vmhd", vmhd) + dinf + stbl))
    }

    static let identityMatrix = be32(0x0001_0000) + be32(0) + be32(0) + be32(0) + be32(0x0001_0000) + be32(0) + be32(0) + be32(0) + be32(0x4000_0000)

    static func box(_ type: String, _ content: Data) -> Data {
        be32(UInt32(8 + content.count)) + Data(type.utf8) + content
    }

    static func be32(_ value: UInt32) -> Data { Data([UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]) }
    static func be64(_ value: UInt64) -> Data { be32(UInt32(value >> 32)) + be32(UInt32(value & 0xFFFF_FFFF)) }
}

/// A small fast PRNG (SplitMix64) so synthetic files, and the damage tests do to samples, are reproducible.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
