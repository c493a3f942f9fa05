import Foundation
import LightboxProtocol
import LightboxTransport
import Logging
import Testing
@testable import Picker

/// Import reads each file once and imports several at once; what it gives is what importing the
/// files one by one gives.
@Suite struct ParallelImportTests {
    static let library = PickerFixture.samples.appendingPathComponent("library")

    @Test func aFolderImportsAsItsFilesDoOneByOneInFileOrder() async throws {
        let parallel = try PickerFixture()
        let oneByOne = try PickerFixture()
        defer { parallel.remove(); oneByOne.remove() }
        let summary = try await parallel.importer.importFolder(Self.library) { _ in }
        var expected: [String] = []
        for file in try parallel.importer.mediaCandidates(in: Self.library) {
            expected.append(try await oneByOne.importer.importFile(file).identifier)
        }
        #expect(summary.imported == expected, "the same identifiers, in file order")
        let records = try await parallel.catalog.assets(summary.imported)
        let alone = try await oneByOne.catalog.assets(expected)
        for identifier in expected {
            let record = try #require(records[identifier])
            let other = try #require(alone[identifier])
            #expect(record.storedPath == other.storedPath)
            #expect(record.fileName == other.fileName)
            #expect(record.fileSize == other.fileSize)
            #expect(record.creationDate == other.creationDate)
            #expect(record.imageProperties == other.imageProperties)
            let stored = parallel.catalog.originalURL(of: record)
            #expect(try SHA256Hasher.hex(fileAt: stored) == record.contentHash)
            let mode = try FileManager.default.attributesOfItem(atPath: stored.path)[.posixPermissions] as? NSNumber
            #expect(mode?.intValue == 0o600)
        }
        #expect(Self.leftovers(in: parallel.catalog.originals).isEmpty, "no staging or partial files stay behind")
    }

    /// The service's import proof: each image's owner thumbnail, made in the job that stored it,
    /// is in the derivative cache afterwards and counted there; a second import makes none.
    @Test func importLeavesEachImagesOwnerThumbnailCountedInTheCache() async throws {
        let fixture = try PickerFixture()
        defer { fixture.remove() }
        let cache = RenditionStore(catalog: fixture.catalog, quota: 1 << 30, pool: fixture.pool, timeLimit: .seconds(30), logger: Logger(label: "test"))
        var importer = fixture.importer
        importer.proveDecodes = { stored, contents, hash in
            try cache.makeOwnerThumbnail(ofStored: stored, contents: contents, contentHash: hash)
        }
        importer.provedBytes = { await cache.counted(madeElsewhere: $0) }
        let summary = try await importer.importFolder(Self.library) { _ in }
        let records = try await fixture.catalog.assets(summary.imported)
        let kind = RenditionKey.Kind.image(width: RenditionKey.ownerThumbnailSide, height: RenditionKey.ownerThumbnailSide,
                                           mode: .fit, quality: 80)
        var bytes: Int64 = 0
        for record in records.values where record.mediaType == .image {
            let thumbnail = cache.url(of: RenditionKey(contentHash: record.contentHash, kind: kind))
            let size = try #require(try FileManager.default.attributesOfItem(atPath: thumbnail.path)[.size] as? NSNumber)
            #expect(size.int64Value > 0, "\(record.fileName)")
            bytes += size.int64Value
        }
        #expect(bytes > 0)
        #expect(await cache.size == bytes)
        _ = try await importer.importFolder(Self.library) { _ in }
        #expect(await cache.size == bytes, "nothing made or counted twice")
        #expect(Self.leftovers(in: fixture.catalog.derived).isEmpty)
    }

    @Test func filesWithTheSameBytesAreOneAssetNamedAfterTheFirst() async throws {
        let fixture = try PickerFixture()
        let folder = fixture.folder.appendingPathComponent("same")
        defer { fixture.remove() }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["a.jpg", "b.jpg", "c.jpg"] {
            try FileManager.default.copyItem(at: Self.library.appendingPathComponent("harbour.jpg"), to: folder.appendingPathComponent(name))
        }
        try FileManager.default.copyItem(at: Self.library.appendingPathComponent("sunset.png"), to: folder.appendingPathComponent("d.png"))
        let summary = try await fixture.importer.importFolder(folder) { _ in }
        #expect(summary.imported.count == 2)
        #expect(summary.unchanged == [summary.imported[0], summary.imported[0]])
        let assets = try await fixture.catalog.allAssets()
        #expect(Set(assets.map(\.fileName)) == ["a.jpg", "d.png"])
        let again = try await fixture.importer.importFolder(folder) { _ in }
        #expect(again.imported.isEmpty)
        #expect(again.unchanged == [summary.imported[0], summary.imported[0], summary.imported[0], summary.imported[1]])
        #expect(try await fixture.catalog.allAssets().count == 2)
    }

    @Test func aLargeFileIsHashedAsItIsCopiedAndStoredPrivately() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ingest-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let source = folder.appendingPathComponent("large.bin")
        var bytes = Data(count: Int(IngestedFile.inMemoryLimit) + 12_345)
        bytes.withUnsafeMutableBytes { buffer in
            for index in stride(from: 0, to: buffer.count, by: 4096) { buffer[index] = UInt8(truncatingIfNeeded: index / 4096) }
        }
        try bytes.write(to: source)
        let originals = folder.appendingPathComponent("originals")
        let ingested = try IngestedFile.read(source, staging: originals)
        guard case .staged = ingested.bytes else { Issue.record("a large file is staged, not held in memory"); return }
        #expect(ingested.hash == SHA256Hasher.hex(bytes))
        #expect(ingested.size == Int64(bytes.count))
        let destination = originals.appendingPathComponent("ab/stored.bin")
        try ingested.store(at: destination)
        ingested.discard()
        #expect(try Data(contentsOf: destination) == bytes)
        let mode = try FileManager.default.attributesOfItem(atPath: destination.path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        #expect(Self.leftovers(in: originals).isEmpty)

        // Stored again (the same content is there): the staging copy goes, the stored file stays.
        let second = try IngestedFile.read(source, staging: originals)
        try second.store(at: destination)
        second.discard()
        #expect(Self.leftovers(in: originals).isEmpty)
        #expect(try Data(contentsOf: destination) == bytes)
    }

    @Test func storedFilesAreSyncedEachWithTheirFoldersOncePerBatch() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("durable-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let files = (0..<12).map { folder.appendingPathComponent("\($0 % 3)/file-\($0)") }
        for file in files {
            try IngestedFile.createFolder(file.deletingLastPathComponent())
            try Data("\(file.lastPathComponent)".utf8).write(to: file)
        }
        try DurableFiles.sync(Array(files.prefix(2)))
        try await DurableFiles.makeDurable(files)  // off the caller's thread
        try DurableFiles.sync([])
        #expect(throws: (any Error).self, "a file that is not there is not durable") {
            try DurableFiles.sync([folder.appendingPathComponent("missing")])
        }
        await #expect(throws: (any Error).self, "nor when synced off the caller's thread") {
            try await DurableFiles.makeDurable([folder.appendingPathComponent("missing")])
        }
    }

    static func leftovers(in folder: URL) -> [String] {
        let names = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
        return names.filter { $0.contains("partial") }
    }
}
