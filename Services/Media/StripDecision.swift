import Foundation

/// What a metadata stripper does with one segment, chunk or block of a file.
enum StripDecision: Equatable {
    /// Copy it as it is.
    case keep
    /// Leave it out.
    case drop
    /// Write this payload in its place (the container's framing, length and checksum made anew).
    case replace(Data)
}
