import Foundation

/// Photoshop image resources, as a JPEG's APP13 segment holds them (`Photoshop 3.0\0`, then
/// `8BIM` resources). Besides IPTC captions and keywords they can hold copies of the EXIF and XMP
/// blocks, and IPTC names the place a photo shows; `removingLocation` takes those out and keeps
/// the rest.
enum PhotoshopResources {
    static let signature = Data("Photoshop 3.0\0".utf8)
    /// EXIF data 1 and 3, and XMP: copies that may carry GPS.
    static let locationCarryingResources: Set<Int> = [0x0422, 0x0423, 0x0424]
    static let iptcResource = 0x0404
    /// The MD5 of the IPTC data, stale once that changes.
    static let iptcDigestResource = 0x0425
    /// IPTC record 2 datasets that name a place: content location code and name, city,
    /// sub-location, province or state, country code and name.
    static let iptcPlaceDatasets: Set<UInt8> = [26, 27, 90, 92, 95, 100, 101]

    /// The APP13 payload without location, or nil when it cannot be parsed (the caller then drops
    /// the whole segment rather than keep something it could not read).
    static func removingLocation(fromPayload payload: Data) -> Data? {
        let bytes = [UInt8](payload)
        guard bytes.starts(with: signature) else { return nil }
        var output = [UInt8](signature)
        var index = signature.count
        var resources: [(id: Int, bytes: [UInt8])] = []
        var iptcChanged = false
        while index < bytes.count {
            // Signature, id, Pascal name padded to an even length, data size, data padded to even.
            guard index + 7 <= bytes.count else { return nil }
            let start = index
            let id = Int(bytes[index + 4]) << 8 | Int(bytes[index + 5])
            let nameLength = Int(bytes[index + 6])
            let nameField = (1 + nameLength + 1) & ~1
            let sizeIndex = index + 6 + nameField
            guard sizeIndex + 4 <= bytes.count else { return nil }
            let size = bytes[sizeIndex..<(sizeIndex + 4)].reduce(0) { $0 << 8 | Int($1) }
            let dataStart = sizeIndex + 4
            guard size <= bytes.count - dataStart else { return nil }
            let end = min(dataStart + (size + 1) & ~1, bytes.count)
            index = end
            if locationCarryingResources.contains(id) { continue }
            if id == iptcResource {
                guard let filtered = withoutPlaces(Array(bytes[dataStart..<(dataStart + size)])) else { return nil }
                if filtered.count != size {
                    iptcChanged = true
                    var resource = Array(bytes[start..<sizeIndex])
                    resource += withUnsafeBytes(of: UInt32(filtered.count).bigEndian, Array.init) + filtered
                    if filtered.count % 2 == 1 { resource.append(0) }
                    resources.append((id, resource))
                    continue
                }
            }
            resources.append((id, Array(bytes[start..<end])))
        }
        for resource in resources where !(iptcChanged && resource.id == iptcDigestResource) {
            output += resource.bytes
        }
        return Data(output)
    }

    /// IPTC-IIM datasets (0x1C, record, dataset, length, data) without record 2's place names.
    static func withoutPlaces(_ iptc: [UInt8]) -> [UInt8]? {
        var output: [UInt8] = []
        var index = 0
        while index < iptc.count {
            if iptc[index] == 0 { output += iptc[index...]; break }  // padding at the end
            guard iptc[index] == 0x1C, index + 5 <= iptc.count else { return nil }
            let record = iptc[index + 1]
            let dataset = iptc[index + 2]
            var length = Int(iptc[index + 3]) << 8 | Int(iptc[index + 4])
            var dataStart = index + 5
            if length & 0x8000 != 0 {  // extended: the next (length & 0x7FFF) bytes hold the length
                let fieldLength = length & 0x7FFF
                guard fieldLength <= 4, dataStart + fieldLength <= iptc.count else { return nil }
                length = iptc[dataStart..<(dataStart + fieldLength)].reduce(0) { $0 << 8 | Int($1) }
                dataStart += fieldLength
            }
            guard length <= iptc.count - dataStart else { return nil }
            let end = dataStart + length
            if !(record == 2 && iptcPlaceDatasets.contains(dataset)) { output += iptc[index..<end] }
            index = end
        }
        return output
    }
}
