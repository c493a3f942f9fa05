import Foundation
import LightboxProtocol

/// Removes metadata from a GIF by rewriting its block list (`GIFStructure`); image data is copied
/// byte for byte. GIF has no EXIF; its metadata lives in extensions.
///
/// - `.location`: the XMP application extension goes (XMP can hold GPS). Comments stay.
/// - `.all`: comments go too.
///
/// Both keep the header and colour tables, images, graphic control and plain text extensions, and
/// the application extensions that change how the image shows (`NETSCAPE2.0` and `ANIMEXTS1.0`
/// loop counts, `ICCRGBG1012` colour profiles); other application extensions (ImageMagick's IPTC
/// and 8BIM blocks, unknown ones) and unknown extensions are dropped. The file ends with a trailer (junk after it is dropped).
enum GIFMetadataStripper {
    static let displayApplications: Set<String> = ["NETSCAPE2.0", "ANIMEXTS1.0", "ICCRGBG1012"]

    static func strip(_ what: MetadataRemoval, _ bytes: Data, name: String) throws(MediaError) -> Data {
        let structure = try GIFStructure(bytes, name: name)
        var output = bytes.subdata(in: structure.header)
        var endsComplete = true
        for block in structure.blocks where keeps(block, what) {
            output += bytes.subdata(in: block.range)
            endsComplete = block.isComplete
        }
        if endsComplete { output.append(0x3B) }  // a frame cut short stays cut short, as it came
        return output
    }

    static func keeps(_ block: GIFStructure.Block, _ what: MetadataRemoval) -> Bool {
        switch block.kind {
        case .image: return true
        case .extension(let label, let application):
            guard block.isComplete else { return false }
            switch label {
            case 0xF9, 0x01: return true  // graphic control, plain text
            case 0xFE: return what != .all  // comment
            case 0xFF: return application.map(displayApplications.contains) ?? false
            default: return false
            }
        }
    }
}
