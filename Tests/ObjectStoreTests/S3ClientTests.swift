import Crypto
import Foundation
import LightboxObjectStore
import LightboxProtocol
import NIOCore
import TestServers
import Testing

/// The S3 client against a real SeaweedFS server (see SeaweedFSServer).
@Suite(.serialized)
struct S3ClientTests {
    let bucket = SeaweedFSServer.bucket

    /// Runs `body` with a fresh server and client, then stops both.
    func withServer(_ body: (SeaweedFSServer, S3Client) async throws -> Void) async throws {
        let server = try await SeaweedFSServer.start()
        defer { server.stop() }
        let client = try server.client()
        do {
            try await body(server, client)
        } catch {
            await client.shutdown()
            throw error
        }
        await client.shutdown()
    }

    /// A file of `count` pseudo-random bytes (a different pattern per seed), written a MiB at a time.
    func randomFile(_ count: Int, seed: UInt64) throws -> URL {
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("s3-test-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var state = seed &+ 0x9E37_79B9_7F4A_7C15
        var written = 0
        while written < count {
            let length = min(1 << 20, count - written)
            var chunk = [UInt8](repeating: 0, count: length)
            for index in 0..<length {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                chunk[index] = UInt8(truncatingIfNeeded: state >> 33)
            }
            try handle.write(contentsOf: chunk)
            written += length
        }
        return url
    }

    func bytes(of body: ObjectBody) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        for try await chunk in body { bytes += chunk.readableBytesView }
        return bytes
    }

    func sha256(of body: ObjectBody) async throws -> (String, Int) {
        var hasher = SHA256()
        var count = 0
        for try await chunk in body {
            chunk.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
            count += chunk.readableBytes
        }
        return (hasher.finalize().map { String(format: "%02x", $0) }.joined(), count)
    }

    /// Read a mebibyte at a time: the whole file in memory would raise the test process's peak,
    /// which suites running beside this one (FairTransportTests) measure.
    func sha256(of file: URL, from offset: UInt64 = 0) throws -> String {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        try handle.seek(toOffset: offset)
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(data: chunk) }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// Fails the test instead of hanging when `operation` does not end within `limit` (a guard, not a measurement).
    func withinGuard<T: Sendable>(_ limit: Duration = .seconds(90), _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await operation() }
            group.addTask { try await Task.sleep(for: limit); return nil }
            guard let first = try await group.next(), let value = first else {
                group.cancelAll()
                throw HarnessError("the request hung for \(limit)")
            }
            group.cancelAll()
            return value
        }
    }

    func storeError(_ operation: @escaping @Sendable () async throws -> Void) async throws -> ObjectStoreError {
        let outcome: ObjectStoreError? = try await withinGuard {
            do {
                try await operation()
                return nil
            } catch let error as ObjectStoreError {
                return error
            }
        }
        return try #require(outcome, "the operation succeeded")
    }

    @Test func smallObjectRoundTripsByteForByte() async throws {
        try await withServer { _, client in
            let file = try randomFile(100_000, seed: 1)
            defer { try? FileManager.default.removeItem(at: file) }
            try await client.put(bucket: bucket, key: "photos/small.bin", file: file.path)
            let summary = try #require(try await client.head(bucket: bucket, key: "photos/small.bin"))
            #expect(summary.size == 100_000)
            let body = try await client.get(bucket: bucket, key: "photos/small.bin")
            #expect(body.contentLength == 100_000)
            #expect(try await bytes(of: body) == [UInt8](try Data(contentsOf: file)))
        }
    }

    /// Keys are signed as encoded once and sent the same way: spaces, `+`, `$`, non-ASCII and nested folders survive.
    @Test func keysWithAwkwardCharactersRoundTrip() async throws {
        try await withServer { _, client in
            let file = try randomFile(5000, seed: 7)
            defer { try? FileManager.default.removeItem(at: file) }
            let keys = ["ab/cd/a b+c$d.jpg", "ab/Été ሴ (1).heic", "ab/~tilde_-.x"]
            for key in keys {
                try await client.put(bucket: bucket, key: key, file: file.path)
                #expect(try await bytes(of: try await client.get(bucket: bucket, key: key)) == [UInt8](try Data(contentsOf: file)), "\(key)")
            }
            #expect(Set(try await client.listAll(bucket: bucket, prefix: "ab/").map(\.key)) == Set(keys))
        }
    }

    /// The store vanishing while a body streams ends the stream with an error, never a silently short object.
    @Test func storeDyingMidStreamFailsTheRead() async throws {
        try await withServer { server, client in
            let size = 64 * 1024 * 1024
            let file = try randomFile(size, seed: 8)
            defer { try? FileManager.default.removeItem(at: file) }
            try await client.put(bucket: bucket, key: "dying.bin", file: file.path)
            let body = try await client.get(bucket: bucket, key: "dying.bin")
            let outcome: Result<Int, ObjectStoreError> = try await withinGuard {
                var received = 0
                do {
                    for try await chunk in body {
                        received += chunk.readableBytes
                        if received >= 1 << 20 && server.isRunning { server.kill() }
                    }
                    return .success(received)
                } catch let error as ObjectStoreError {
                    return .failure(error)
                }
            }
            switch outcome {
            case .success(let received):
                // The whole object may already have been in flight when the server died; anything short of it is a bug.
                #expect(received == size, "the stream ended quietly after \(received) of \(size) bytes")
            case .failure(let error):
                #expect(error.code == .timeout, "\(error)")
            }
        }
    }

    /// A consumer pausing longer than the idle timeout (an app withholding credit) still gets every byte:
    /// the body resumes with a ranged GET where it stopped.
    @Test func consumerPausingPastTheIdleTimeoutStillGetsEveryByte() async throws {
        try await withServer { server, uploader in
            let size = 64 * 1024 * 1024
            let file = try randomFile(size, seed: 9)
            defer { try? FileManager.default.removeItem(at: file) }
            // Uploaded with the usual timeouts: only the read below is about the short idle one (a
            // loaded machine can leave a part's upload silent for more than a second).
            try await uploader.put(bucket: bucket, key: "paused.bin", file: file.path)
            let client = try server.client(timeouts: S3Timeouts(connect: .seconds(60), idle: .seconds(3)))
            var hasher = SHA256()
            var received = 0
            var pauses = 0
            do {
                for try await chunk in try await client.get(bucket: bucket, key: "paused.bin", range: 1000..<Int64(size)) {
                    chunk.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
                    received += chunk.readableBytes
                    if pauses < 2 && received > pauses * (8 << 20) {
                        pauses += 1
                        try await Task.sleep(for: .seconds(8))
                    }
                }
            } catch {
                await client.shutdown()
                throw error
            }
            await client.shutdown()
            #expect(pauses == 2)
            #expect(received == size - 1000)
            #expect(hasher.finalize().map { String(format: "%02x", $0) }.joined() == (try sha256(of: file, from: 1000)))
        }
    }

    @Test func objectAboveSixteenMiBGoesUpInPartsAndRoundTrips() async throws {
        try await withServer { _, client in
            // Five parts: more than go up at once, so a part starts as another finishes, and the
            // store must still join them in order.
            let size = 72 * 1024 * 1024 + 12_345
            let file = try randomFile(size, seed: 2)
            defer { try? FileManager.default.removeItem(at: file) }
            try await client.put(bucket: bucket, key: "photos/large.bin", file: file.path)
            let summary = try #require(try await client.head(bucket: bucket, key: "photos/large.bin"))
            #expect(summary.size == Int64(size))
            // A multipart object's tag is "<hash of the part hashes>-<part count>": five parts of at most 16 MiB.
            #expect(summary.etag?.hasSuffix("-5") == true, "tag \(summary.etag ?? "none")")
            let (digest, count) = try await sha256(of: try await client.get(bucket: bucket, key: "photos/large.bin"))
            #expect(count == size)
            #expect(digest == (try sha256(of: file)))
            // No parts are left behind: the listing holds the one object.
            #expect(try await client.listAll(bucket: bucket, prefix: "photos/").map(\.key) == ["photos/large.bin"])
        }
    }

    @Test func rangedGetsReturnExactlyTheRange() async throws {
        try await withServer { _, client in
            let size = 1_000_003
            let file = try randomFile(size, seed: 3)
            defer { try? FileManager.default.removeItem(at: file) }
            let original = [UInt8](try Data(contentsOf: file))
            try await client.put(bucket: bucket, key: "ranged.bin", file: file.path)
            for range: Range<Int64> in [0..<1, 0..<65_536, 500_000..<700_001, Int64(size) - 10..<Int64(size)] {
                let body = try await client.get(bucket: bucket, key: "ranged.bin", range: range)
                #expect(body.contentLength == Int64(range.count))
                #expect(try await bytes(of: body) == Array(original[Int(range.lowerBound)..<Int(range.upperBound)]), "range \(range)")
            }
        }
    }

    @Test func listingFollowsContinuationTokens() async throws {
        try await withServer { _, client in
            let file = try randomFile(10, seed: 4)
            defer { try? FileManager.default.removeItem(at: file) }
            let keys = (0..<7).map { "list/item-\($0)" }
            for key in keys.reversed() { try await client.put(bucket: bucket, key: key, file: file.path) }
            try await client.put(bucket: bucket, key: "elsewhere/item", file: file.path)
            var pages: [[String]] = []
            var token: String?
            repeat {
                let page = try await client.list(bucket: bucket, prefix: "list/", maxKeys: 3, continuationToken: token)
                pages.append(page.objects.map(\.key))
                token = page.continuationToken
            } while token != nil && pages.count < 10
            #expect(pages == [Array(keys[0..<3]), Array(keys[3..<6]), [keys[6]]])
            #expect(try await client.listAll(bucket: bucket, prefix: "list/", pageSize: 2).map(\.key) == keys)
            #expect(try await client.listAll(bucket: bucket, prefix: "list/").allSatisfy { $0.size == 10 })
        }
    }

    @Test func deletedObjectIsGoneAndReadingItIsNotFound() async throws {
        try await withServer { _, client in
            let file = try randomFile(1000, seed: 5)
            defer { try? FileManager.default.removeItem(at: file) }
            try await client.put(bucket: bucket, key: "gone.bin", file: file.path)
            try await client.delete(bucket: bucket, key: "gone.bin")
            #expect(try await client.head(bucket: bucket, key: "gone.bin") == nil)
            let error = try await storeError { _ = try await client.get(bucket: bucket, key: "gone.bin") }
            #expect(error.code == .notFound)
            #expect(error.cause == "NoSuchKey")
        }
    }

    @Test func wrongCredentialsGiveAClearError() async throws {
        try await withServer { server, _ in
            let wrongSecret = try server.client(credentials: SigningCredentials(
                accessKeyID: SeaweedFSServer.credentials.accessKeyID, secretAccessKey: "not-the-secret"))
            let wrongKey = try server.client(credentials: SigningCredentials(accessKeyID: "NOSUCHKEY", secretAccessKey: "whatever"))
            defer { Task { await wrongSecret.shutdown(); await wrongKey.shutdown() } }
            let badSignature = try await storeError { _ = try await wrongSecret.list(bucket: bucket, prefix: "") }
            #expect(badSignature.code == .internal)
            #expect(badSignature.cause == "SignatureDoesNotMatch")
            #expect(badSignature.message.contains("check the access key and secret"))
            let unknownKey = try await storeError { _ = try await wrongKey.list(bucket: bucket, prefix: "") }
            #expect(unknownKey.cause == "InvalidAccessKeyId")
        }
    }

    @Test func storeThatIsDownAnswersTimeoutInsteadOfHanging() async throws {
        try await withServer { server, client in
            let file = try randomFile(1000, seed: 6)
            defer { try? FileManager.default.removeItem(at: file) }
            try await client.put(bucket: bucket, key: "before.bin", file: file.path)
            server.kill()
            let error = try await storeError { _ = try await client.get(bucket: bucket, key: "before.bin") }
            #expect(error.code == .timeout)
            #expect(error.message.contains("cannot be reached") || error.message.contains("stopped answering"), "\(error)")
        }
    }

    /// A peer that takes the connection and never answers: the idle timeout ends the wait.
    @Test func storeThatNeverAnswersTimesOut() async throws {
        let (socket, port) = try FreePorts.listen(backlog: 16, keep: true)
        defer { close(socket) }
        let client = try S3Client(endpoint: "http://127.0.0.1:\(port)", credentials: SeaweedFSServer.credentials,
                                  timeouts: S3Timeouts(connect: .seconds(2), idle: .seconds(1)))
        defer { Task { await client.shutdown() } }
        let error = try await storeError { _ = try await client.head(bucket: "b", key: "k") }
        #expect(error.code == .timeout)
        #expect(error.message.contains("127.0.0.1:\(port)"))
    }

    @Test func credentialsFileMustBePrivate() throws {
        let file = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("s3-credentials-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try "[default]\naws_access_key_id = AKID\naws_secret_access_key = SECRET\n".write(to: file, atomically: true, encoding: .utf8)
        chmod(file.path, 0o644)
        #expect(throws: ObjectStoreError.self) { try SigningCredentials.read(file: file.path) }
        chmod(file.path, 0o600)
        #expect(try SigningCredentials.read(file: file.path) == SigningCredentials(accessKeyID: "AKID", secretAccessKey: "SECRET"))
        #expect(throws: ObjectStoreError.self) { try SigningCredentials.load(file: nil, environment: [:]) }
        #expect(try SigningCredentials.load(file: nil, environment: ["AWS_ACCESS_KEY_ID": "A", "AWS_SECRET_ACCESS_KEY": "S"])
            == SigningCredentials(accessKeyID: "A", secretAccessKey: "S"))
    }

    @Test func locationsParse() {
        #expect(S3Location(url: "s3://photos/originals") == S3Location(bucket: "photos", prefix: "originals/"))
        #expect(S3Location(url: "s3://photos") == S3Location(bucket: "photos", prefix: ""))
        #expect(S3Location(url: "/var/lib/lightbox") == nil)
        #expect(S3Location(url: "s3:///x") == nil)
    }
}
