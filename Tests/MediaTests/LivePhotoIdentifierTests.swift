import Foundation
import Media
import Testing

/// Apple's Live Photo content identifier, from a still's MakerNote and a movie's QuickTime keys.
/// Samples/live is made by its make_live.py; exiftool reads the same identifier from both files.
@Suite struct LivePhotoIdentifierTests {
    static let live = SampleFiles.folder.appendingPathComponent("live")
    static let identifier = "6F1D2C4B-8A3E-4F50-9B7C-1E2D3C4B5A69"

    @Test func theStillsMakerNoteAndTheMoviesKeyCarryTheSameIdentifier() throws {
        let still = try MetadataReader.read(fileAt: Self.live.appendingPathComponent("identified.jpg"))
        #expect(still.contentIdentifier == Self.identifier)
        let movie = try MetadataReader.read(fileAt: Self.live.appendingPathComponent("movie-of-identified.mov"))
        #expect(movie.contentIdentifier == Self.identifier)
    }

    @Test func filesWithoutOneHaveNone() throws {
        #expect(try MetadataReader.read(fileAt: Self.live.appendingPathComponent("IMG_0002.JPG")).contentIdentifier == nil)
        #expect(try MetadataReader.read(fileAt: Self.live.appendingPathComponent("IMG_0002.MOV")).contentIdentifier == nil)
        #expect(try MetadataReader.read(fileAt: SampleFiles.library("harbour.jpg")).contentIdentifier == nil)
    }
}
