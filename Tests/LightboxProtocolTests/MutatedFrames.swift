import Foundation

extension Data {
    /// This frame a byte or a few away: broken, or still JSON in odd ways. For the tests that hold a
    /// reader of plain JSON to JSONDecoder (`RequestHeadTests`, `WireJSONDecoderTests`).
    func mutated(using generator: inout some RandomNumberGenerator) -> Data {
        var bytes = Array(self)
        for _ in 0..<Int.random(in: 1...3, using: &generator) {
            let position = Int.random(in: 0..<bytes.count, using: &generator)
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: bytes[position] = Self.mutationAlphabet.randomElement(using: &generator)!
            case 1: bytes.insert(Self.mutationAlphabet.randomElement(using: &generator)!, at: position)
            case 2: if bytes.count > 1 { bytes.remove(at: position) }
            default:
                let end = Swift.min(bytes.count, position + Int.random(in: 1...8, using: &generator))
                bytes.insert(contentsOf: bytes[position..<end], at: position)
            }
        }
        return Data(bytes)
    }

    /// JSON's punctuation, the letters of its literals and of the envelope's keys, and bytes it forbids.
    static let mutationAlphabet = Array(#"{}[]":,.-+0123456789eE \ntfnulrv"idopbyx\/"#.utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xA9, 0xFF]
}
