import ArgumentParser
import Foundation
import LightboxCommandLineSupport
import LightboxObjectStore

/// `lightbox-bench s3`: one large object up and down through LightboxObjectStore's S3 client, against
/// `curl --aws-sigv4` moving the same file to and from the same store, and `cat` reading it locally.
struct BenchS3Command: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "s3", abstract: "PUT and GET one large object through the S3 client, then through curl, on any S3-compatible store.",
        discussion: """
        Runs against --endpoint and --bucket with credentials in AWS_ACCESS_KEY_ID and \
        AWS_SECRET_ACCESS_KEY (any S3-compatible store); without --endpoint it starts a throwaway \
        SeaweedFS (`weed mini`, as the tests do; `make deps` installs it). Writes a file of random bytes, uploads it with the client (multipart above \
        16 MiB) and streams it back, then does the same with curl, and times `cat FILE > /dev/null`; \
        prints MB/s of each and the ratios. The objects are deleted afterwards.
        """)

    @Option(help: "The store's endpoint, e.g. http://127.0.0.1:8333 (default: a throwaway SeaweedFS).") var endpoint: String?
    @Option(help: "A bucket that exists on the store (with --endpoint).") var bucket: String?
    @Option(help: "The region signed for.") var region = "us-east-1"
    @Option(help: "Size of the object in MiB.") var sizeMb = 256

    func run() async throws {
        let servers = ThrowawayServers()
        defer { servers.stop() }
        let store = try await servers.objectStore(endpoint: endpoint, bucket: bucket)
        let (endpoint, bucket, credentials) = (store.endpoint, store.bucket, store.credentials)
        let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("lightbox-bench-s3-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let file = work.appendingPathComponent("object.bin")
        let bytes = sizeMb << 20
        note("writing \(sizeMb) MiB of random bytes")
        try writeRandom(bytes, to: file)

        let client = try S3Client(endpoint: endpoint, region: region, credentials: credentials)
        let key = "lightbox-bench/\(getpid())/client.bin"
        let clock = ContinuousClock()
        note("PUT and GET through the S3 client")
        let put = try await clock.measure { try await client.put(bucket: bucket, key: key, file: file.path) }
        var received = 0
        let get = try await clock.measure {
            for try await chunk in try await client.get(bucket: bucket, key: key) { received += chunk.readableBytes }
        }
        try await client.delete(bucket: bucket, key: key)
        await client.shutdown()
        guard received == bytes else { throw ValidationError("the client read back \(received) bytes of \(bytes)") }

        note("PUT and GET through curl --aws-sigv4")
        let url = "\(endpoint)/\(bucket)/lightbox-bench/\(getpid())/curl.bin"
        let sign = ["--aws-sigv4", "aws:amz:\(region):s3", "--user", "\(credentials.accessKeyID):\(credentials.secretAccessKey)"]
        let curlPut = try clock.measure { try run("/usr/bin/curl", ["-sSf"] + sign + ["-T", file.path, url, "-o", "/dev/null"]) }
        let curlGet = try clock.measure { try run("/usr/bin/curl", ["-sSf"] + sign + [url, "-o", "/dev/null"]) }
        try run("/usr/bin/curl", ["-sSf", "-X", "DELETE"] + sign + [url, "-o", "/dev/null"])
        let cat = try clock.measure { try run("/bin/sh", ["-c", "cat '\(file.path)' > /dev/null"]) }

        func rate(_ duration: Duration) -> Double { Double(bytes) / 1e6 / duration.seconds }
        print(String(format: "PUT  %d MiB  client %.0f MB/s  curl %.0f MB/s  client/curl %.2f", sizeMb, rate(put), rate(curlPut),
                     rate(put) / rate(curlPut)))
        print(String(format: "GET  %d MiB  client %.0f MB/s  curl %.0f MB/s  client/curl %.2f  (cat of the local file %.0f MB/s)",
                     sizeMb, rate(get), rate(curlGet), rate(get) / rate(curlGet), rate(cat)))
    }

    private func writeRandom(_ count: Int, to file: URL) throws {
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        var generator = SystemRandomNumberGenerator()
        var written = 0
        while written < count {
            let words = (0..<(min(1 << 20, count - written) / 8)).map { _ in generator.next() as UInt64 }
            try words.withUnsafeBytes { try handle.write(contentsOf: Data($0)) }
            written += words.count * 8
        }
    }

    private func run(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ValidationError("\(executable) \(arguments.first ?? "") failed with status \(process.terminationStatus)")
        }
    }
}
