import AsyncHTTPClient
import Foundation
import LightboxProtocol
import NIOCore
import NIOHTTP1
import NIOPosix

/// A client for any S3-compatible store, addressed path-style (`ENDPOINT/BUCKET/KEY`), every request signed
/// with Signature V4. Uploads stream from files, downloads stream to the caller; every request is bounded
/// by `S3Timeouts`, and every failure is an `ObjectStoreError`.
public final class S3Client: Sendable {
    /// Objects up to this size go up in one PUT; larger ones in parts of this size.
    public static let multipartThreshold: Int64 = 16 * 1024 * 1024
    /// The longest error document read from the store.
    static let errorDocumentLimit = 64 * 1024
    /// The longest listing or multipart document read from the store.
    static let documentLimit = 8 * 1024 * 1024

    /// A listing's `LastModified` (ISO 8601, with or without fractions of a second).
    static func timestamp(_ text: String) -> Date? {
        (try? Date(text, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true)))
            ?? (try? Date(text, strategy: .iso8601))
    }

    /// The endpoint as given, for messages.
    public let endpoint: String
    let baseURL: String
    let host: String
    let signer: SignatureV4
    let timeouts: S3Timeouts
    let http: HTTPClient

    /// A client of the store at `endpoint` (`http://HOST:PORT` or `https://…`).
    /// Call `shutdown()` once done with it.
    public init(endpoint: String, region: String = "us-east-1", credentials: SigningCredentials,
                timeouts: S3Timeouts = S3Timeouts()) throws(ObjectStoreError) {
        guard let url = URL(string: endpoint), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let hostName = url.host, !hostName.isEmpty, url.path.isEmpty || url.path == "/"
        else {
            throw ObjectStoreError(code: .badRequest, message: "The S3 endpoint \(endpoint) is not a URL like http://HOST:PORT or https://HOST.")
        }
        let defaultPort = scheme == "https" ? 443 : 80
        let hostHeader = url.port.map { $0 == defaultPort ? hostName : "\(hostName):\($0)" } ?? hostName
        self.endpoint = endpoint
        self.baseURL = "\(scheme)://\(hostHeader)"
        self.host = hostHeader
        self.signer = SignatureV4(credentials: credentials, region: region)
        self.timeouts = timeouts
        var configuration = HTTPClient.Configuration(
            timeout: .init(connect: timeouts.connect, read: timeouts.idle, write: timeouts.idle))
        // A refused connection answers at once (the store is down) instead of being retried until a deadline.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.redirectConfiguration = .disallow
        self.http = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
    }

    /// Closes the client's connections.
    public func shutdown() async {
        try? await http.shutdown()
    }

    // MARK: Objects

    /// The object's size and tag; nil when there is no such object.
    public func head(bucket: String, key: String) async throws(ObjectStoreError) -> ObjectSummary? {
        let response = try await send(.HEAD, bucket: bucket, key: key, doing: "look up \(key)")
        if response.status == .notFound { return nil }
        try await requireSuccess(response, doing: "look up \(key)")
        let size = response.headers.first(name: "content-length").flatMap { Int64($0) } ?? 0
        return ObjectSummary(key: key, size: size, etag: Self.unquoted(response.headers.first(name: "etag")))
    }

    /// The object's bytes, or those in `range` (offsets, end exclusive), as a stream of chunks.
    public func get(bucket: String, key: String, range: Range<Int64>? = nil) async throws(ObjectStoreError) -> ObjectBody {
        var headers: [(name: String, value: String)] = []
        if let range {
            guard !range.isEmpty else {
                throw ObjectStoreError(code: .badRequest, message: "An empty range of \(key) was asked for.")
            }
            headers.append((name: "range", value: "bytes=\(range.lowerBound)-\(range.upperBound - 1)"))
        }
        let doing = "read \(key)"
        let response = try await send(.GET, bucket: bucket, key: key, headers: headers, doing: doing)
        try await requireSuccess(response, doing: doing)
        guard let length = response.headers.first(name: "content-length").flatMap({ Int64($0) }) else {
            throw ObjectStoreError(code: .internal, message: "The object store at \(endpoint) sent \(key) without its length.")
        }
        if let range, length != range.count {
            throw ObjectStoreError(
                code: .internal,
                message: "The object store at \(endpoint) answered a read of \(range.count) bytes of \(key) with \(length).")
        }
        let failure: @Sendable (any Error) -> ObjectStoreError = { [endpoint = self.endpoint, timeouts = self.timeouts] error in
            Self.transportFailure(error, endpoint: endpoint, timeouts: timeouts, doing: doing)
        }
        let start = range?.lowerBound ?? 0
        let etag = response.headers.first(name: "etag")
        let reopen: @Sendable (Int64) async throws -> HTTPClientResponse.Body = { [self] offset in
            var headers: [(name: String, value: String)] = [(name: "range", value: "bytes=\(start + offset)-\(start + length - 1)")]
            if let etag { headers.append((name: "if-match", value: etag)) }
            let resumed = try await send(.GET, bucket: bucket, key: key, headers: headers, doing: doing)
            try await requireSuccess(resumed, doing: doing)
            return resumed.body
        }
        return ObjectBody(contentLength: length, body: response.body, reopen: reopen, failure: failure)
    }

    /// Removes the object (removing one that is not there succeeds, as S3 does).
    public func delete(bucket: String, key: String) async throws(ObjectStoreError) {
        let response = try await send(.DELETE, bucket: bucket, key: key, doing: "delete \(key)")
        try await requireSuccess(response, doing: "delete \(key)")
    }

    /// One page (up to `maxKeys`) of the keys under `prefix`, in key order.
    public func list(bucket: String, prefix: String, maxKeys: Int = 1000,
                     continuationToken: String? = nil) async throws(ObjectStoreError) -> ObjectListingPage {
        var query: [(name: String, value: String)] = [("list-type", "2"), ("prefix", prefix), ("max-keys", String(maxKeys))]
        if let continuationToken { query.append(("continuation-token", continuationToken)) }
        let doing = "list \(prefix)"
        let document = try await sendForDocument(.GET, bucket: bucket, key: nil, query: query, doing: doing)
        let objects = document.all("Contents").compactMap { entry -> ObjectSummary? in
            guard let key = entry.text(of: "Key") else { return nil }
            return ObjectSummary(key: key, size: entry.text(of: "Size").flatMap { Int64($0) } ?? 0,
                                 etag: Self.unquoted(entry.text(of: "ETag")), lastModified: entry.text(of: "LastModified").flatMap(Self.timestamp))
        }
        let truncated = document.text(of: "IsTruncated") == "true"
        let next = truncated ? document.text(of: "NextContinuationToken") : nil
        if truncated && next == nil {
            throw ObjectStoreError(code: .internal, message: "The object store at \(endpoint) cut a listing short without saying where to go on.")
        }
        return ObjectListingPage(objects: objects, continuationToken: next)
    }

    /// Every key under `prefix`, page after page.
    public func listAll(bucket: String, prefix: String, pageSize: Int = 1000) async throws(ObjectStoreError) -> [ObjectSummary] {
        var objects: [ObjectSummary] = []
        var token: String?
        repeat {
            let page = try await list(bucket: bucket, prefix: prefix, maxKeys: pageSize, continuationToken: token)
            objects += page.objects
            token = page.continuationToken
        } while token != nil
        return objects
    }

    // MARK: Requests

    /// Signs and sends one request; the answer's body is left for the caller to read.
    /// `payload` is what the body hashes to (the empty body's hash when there is none).
    func send(_ method: HTTPMethod, bucket: String, key: String?, query: [(name: String, value: String)] = [],
              headers: [(name: String, value: String)] = [], payload: PayloadHash = .empty,
              body: HTTPClientRequest.Body? = nil, doing: String) async throws(ObjectStoreError) -> HTTPClientResponse {
        let path = key.map { "/\(bucket)/\($0)" } ?? "/\(bucket)"
        var signed = headers
        signed.append((name: "x-amz-content-sha256", value: payload.headerValue))
        let signature = signer.sign(
            SignatureV4.Request(method: method.rawValue, host: host, path: path, query: query, headers: signed, payload: payload),
            at: Date())
        let canonicalQuery = SignatureV4.canonicalQuery(query)
        var request = HTTPClientRequest(url: baseURL + URIEncoding.path(path) + (canonicalQuery.isEmpty ? "" : "?" + canonicalQuery))
        request.method = method
        request.headers.add(name: "host", value: host)
        for (name, value) in signed + signature.addedHeaders {
            request.headers.add(name: name, value: value)
        }
        if let body { request.body = body }
        do {
            // The deadline bounds the wait for the answer's head; the idle timeouts bound each stall after that.
            let deadline: NIODeadline = body == nil ? .now() + timeouts.connect + timeouts.idle : .distantFuture
            return try await http.execute(request, deadline: deadline)
        } catch {
            throw Self.transportFailure(error, endpoint: endpoint, timeouts: timeouts, doing: doing)
        }
    }

    /// Sends a request whose answer is a small XML document, and parses it.
    func sendForDocument(_ method: HTTPMethod, bucket: String, key: String?, query: [(name: String, value: String)],
                         payload: PayloadHash = .empty, body: HTTPClientRequest.Body? = nil,
                         doing: String) async throws(ObjectStoreError) -> S3XMLElement {
        let response = try await send(method, bucket: bucket, key: key, query: query, payload: payload, body: body, doing: doing)
        try await requireSuccess(response, doing: doing)
        let bytes = try await collect(response, limit: Self.documentLimit, doing: doing)
        guard let document = S3XMLElement.parse(Data(bytes.readableBytesView)) else {
            throw ObjectStoreError(code: .internal, message: "The object store at \(endpoint) answered \(doing) with a document that is not XML.")
        }
        // S3 may report a failure inside a 200 answer (CompleteMultipartUpload does).
        if document.name == "Error" {
            throw storeFailure(status: response.status, document: document, doing: doing)
        }
        return document
    }

    /// Throws the store's error, read from its XML document, unless the answer is a success.
    func requireSuccess(_ response: HTTPClientResponse, doing: String) async throws(ObjectStoreError) {
        guard !(200..<300).contains(response.status.code) else { return }
        let bytes = (try? await response.body.collect(upTo: Self.errorDocumentLimit)) ?? ByteBuffer()
        throw storeFailure(status: response.status, document: S3XMLElement.parse(Data(bytes.readableBytesView)), doing: doing)
    }

    func collect(_ response: HTTPClientResponse, limit: Int, doing: String) async throws(ObjectStoreError) -> ByteBuffer {
        do {
            return try await response.body.collect(upTo: limit)
        } catch {
            throw Self.transportFailure(error, endpoint: endpoint, timeouts: timeouts, doing: doing)
        }
    }

    /// A refusal by the store, with its S3 error code kept as the cause.
    func storeFailure(status: HTTPResponseStatus, document: S3XMLElement?, doing: String) -> ObjectStoreError {
        let s3Code = document?.text(of: "Code")
        let detail = document?.text(of: "Message").map { ": \($0)" } ?? ""
        let cause = s3Code ?? "HTTP \(status.code)"
        switch (status.code, s3Code) {
        case (404, _):
            return ObjectStoreError(code: .notFound, message: "The object store at \(endpoint) has no such object or bucket (\(doing)).", cause: cause)
        case (_, "InvalidAccessKeyId"), (_, "SignatureDoesNotMatch"), (401, _), (403, _):
            return ObjectStoreError(
                code: .internal,
                message: "The object store at \(endpoint) refused to \(doing)\(detail); check the access key and secret the service was given, and that they may use the bucket.",
                cause: cause)
        case (503, _), (_, "SlowDown"):
            return ObjectStoreError(code: .busy, message: "The object store at \(endpoint) is overloaded; try again later (\(doing)).", cause: cause)
        default:
            return ObjectStoreError(
                code: .internal, message: "The object store at \(endpoint) could not \(doing)\(detail) (HTTP \(status.code)).", cause: cause)
        }
    }

    /// A failure below HTTP: no connection, or no answer in time. Both are `timeout` to the app: the store did not answer.
    static func transportFailure(_ error: any Error, endpoint: String, timeouts: S3Timeouts, doing: String) -> ObjectStoreError {
        if let known = error as? ObjectStoreError { return known }
        if error is CancellationError {
            return ObjectStoreError(code: .cancelled, message: "The request to \(doing) was cancelled.")
        }
        if let http = error as? HTTPClientError {
            switch http {
            case .readTimeout, .writeTimeout, .deadlineExceeded:
                return ObjectStoreError(
                    code: .timeout, message: "The object store at \(endpoint) stopped answering for \(timeouts.idleSeconds) while trying to \(doing).",
                    cause: "\(http)")
            case .connectTimeout:
                return ObjectStoreError(
                    code: .timeout, message: "The object store at \(endpoint) did not accept a connection in time (\(doing)); is it running?",
                    cause: "\(http)")
            case .cancelled:
                return ObjectStoreError(code: .cancelled, message: "The request to \(doing) was cancelled.", cause: "\(http)")
            default:
                break
            }
        }
        return ObjectStoreError(
            code: .timeout, message: "The object store at \(endpoint) cannot be reached (\(doing)); is it running and is the endpoint right?",
            cause: "\(error)")
    }

    static func unquoted(_ etag: String?) -> String? {
        etag.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
    }
}
