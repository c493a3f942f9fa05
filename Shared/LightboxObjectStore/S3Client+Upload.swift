import AsyncHTTPClient
import Crypto
import NIOCore
import NIOFileSystem
import NIOHTTP1

extension S3Client {
    /// Bytes read from the file per chunk while hashing and sending.
    static let uploadChunkLength = ByteCount.kibibytes(256)
    /// Parts of one multipart upload sent at once: each streams from its own range of the file, so
    /// memory stays a chunk per part while a store's per-connection latency is paid in parallel.
    static let partsAtOnce = 4

    /// Uploads the file at `path` as `key`, streamed from disk: one PUT up to `multipartThreshold`,
    /// a multipart upload above it, `partsAtOnce` parts at a time (aborted if any part fails, so no
    /// half object is left).
    /// Each body is hashed before it is sent and signed with that hash, so the store rejects bytes
    /// damaged on the way.
    public func put(bucket: String, key: String, file path: String) async throws(ObjectStoreError) {
        let doing = "upload \(key)"
        do {
            try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(path)) { handle in
                let size = try await handle.info().size
                if size <= Self.multipartThreshold {
                    try await self.putPart(bucket: bucket, key: key, query: [], handle: handle, range: 0..<size, doing: doing)
                } else {
                    try await self.putMultipart(bucket: bucket, key: key, handle: handle, size: size)
                }
            }
        } catch let error as ObjectStoreError {
            throw error
        } catch let error as FileSystemError {
            throw ObjectStoreError(code: .internal, message: "The file \(path) could not be read to \(doing).", cause: "\(error)")
        } catch {
            throw ObjectStoreError(code: .internal, message: "The file \(path) could not be read to \(doing).", cause: "\(error)")
        }
    }

    /// PUTs `range` of the file (the whole object, or one part when `query` names it); returns the ETag.
    @discardableResult
    func putPart(bucket: String, key: String, query: [(name: String, value: String)], handle: ReadFileHandle,
                 range: Range<Int64>, doing: String) async throws -> String? {
        var hasher = SHA256()
        for try await chunk in handle.readChunks(in: range, chunkLength: Self.uploadChunkLength) {
            chunk.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
        }
        let payload = PayloadHash.sha256(hasher.finalize().hexString)
        let body = HTTPClientRequest.Body.stream(
            handle.readChunks(in: range, chunkLength: Self.uploadChunkLength), length: .known(Int64(range.count)))
        let response = try await send(.PUT, bucket: bucket, key: key, query: query, payload: payload, body: body, doing: doing)
        try await requireSuccess(response, doing: doing)
        _ = try await collect(response, limit: Self.errorDocumentLimit, doing: doing)
        return Self.unquoted(response.headers.first(name: "etag"))
    }

    private func putMultipart(bucket: String, key: String, handle: ReadFileHandle, size: Int64) async throws {
        let created = try await sendForDocument(
            .POST, bucket: bucket, key: key, query: [(name: "uploads", value: "")], doing: "start uploading \(key)")
        guard let uploadID = created.text(of: "UploadId"), !uploadID.isEmpty else {
            throw ObjectStoreError(code: .internal, message: "The object store at \(endpoint) started an upload of \(key) without naming it.")
        }
        do {
            let parts = try await withThrowingTaskGroup(of: (number: Int, etag: String).self) { group in
                let count = Int((size + Self.multipartThreshold - 1) / Self.multipartThreshold)
                var next = 1
                func startNext() {
                    guard next <= count else { return }
                    let number = next
                    next += 1
                    group.addTask {
                        let start = Int64(number - 1) * Self.multipartThreshold
                        let etag = try await self.putPart(
                            bucket: bucket, key: key,
                            query: [(name: "partNumber", value: String(number)), (name: "uploadId", value: uploadID)],
                            handle: handle, range: start..<min(start + Self.multipartThreshold, size),
                            doing: "upload part \(number) of \(key)")
                        guard let etag else {
                            throw ObjectStoreError(code: .internal, message: "The object store at \(self.endpoint) took part \(number) of \(key) without tagging it.")
                        }
                        return (number, etag)
                    }
                }
                for _ in 0..<Self.partsAtOnce { startNext() }
                var parts: [(number: Int, etag: String)] = []
                while let part = try await group.next() {
                    parts.append(part)
                    startNext()
                }
                return parts.sorted { $0.number < $1.number }
            }
            let completion = "<CompleteMultipartUpload>"
                + parts.map { "<Part><PartNumber>\($0.number)</PartNumber><ETag>\"\($0.etag)\"</ETag></Part>" }.joined()
                + "</CompleteMultipartUpload>"
            let bytes = Array(completion.utf8)
            _ = try await sendForDocument(
                .POST, bucket: bucket, key: key, query: [(name: "uploadId", value: uploadID)],
                payload: .of(bytes), body: .bytes(ByteBuffer(bytes: bytes)), doing: "finish uploading \(key)")
        } catch {
            // Best effort: the store would otherwise keep the parts (and bill for them) until a lifecycle rule clears them.
            let abort = try? await send(.DELETE, bucket: bucket, key: key, query: [(name: "uploadId", value: uploadID)],
                                        doing: "abandon the upload of \(key)")
            if let abort { _ = try? await collect(abort, limit: Self.errorDocumentLimit, doing: "abandon the upload of \(key)") }
            throw error
        }
    }
}
