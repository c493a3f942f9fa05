import Crypto
import Foundation

/// AWS Signature Version 4 for one region and service: turns a request into the `Authorization` header
/// (and the `x-amz-*` headers it signs) that an S3-compatible store checks.
///
/// The steps are AWS's: a canonical request, a string to sign over its hash, a signing key derived by
/// HMAC-SHA256 chained over date, region, service and `aws4_request`, and the HMAC of the string to sign.
/// Paths are signed as S3 signs them: encoded once, never normalized (see `URIEncoding.path`).
public struct SignatureV4: Sendable {
    public let credentials: SigningCredentials
    public let region: String
    public let service: String

    public init(credentials: SigningCredentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// One request to sign: what goes on the wire, before encoding.
    public struct Request: Sendable {
        public var method: String
        /// The host header's value: the endpoint's host, with `:port` when the port is not the scheme's default.
        public var host: String
        /// The path as the store names it (`/bucket/key`), not yet percent-encoded.
        public var path: String
        /// Query parameters, names and values not yet percent-encoded, in any order.
        public var query: [(name: String, value: String)]
        /// Further headers to sign, in any case and order; repeated names are joined with commas in order.
        public var headers: [(name: String, value: String)]
        public var payload: PayloadHash

        public init(
            method: String, host: String, path: String, query: [(name: String, value: String)] = [],
            headers: [(name: String, value: String)] = [], payload: PayloadHash
        ) {
            self.method = method
            self.host = host
            self.path = path
            self.query = query
            self.headers = headers
            self.payload = payload
        }
    }

    /// The outcome of signing: the intermediate texts (which the test suite checks one by one) and the headers to send.
    public struct Signature: Sendable {
        public let canonicalRequest: String
        public let stringToSign: String
        public let signature: String
        public let authorization: String
        /// `x-amz-date`, `x-amz-security-token` when there is one, and `authorization`; the caller sends them with its own.
        public let addedHeaders: [(name: String, value: String)]
    }

    /// Signs `request` as of `date`.
    ///
    /// `x-amz-content-sha256` is signed only when the caller lists it among the headers (S3 requires it;
    /// the generic suite's vectors mostly omit it), so the caller decides, and sends, what it signs.
    public func sign(_ request: Request, at date: Date) -> Signature {
        let timestamp = Self.timestamp(date)
        let day = String(timestamp.prefix(8))
        var headers = request.headers
        headers.append((name: "host", value: request.host))
        headers.append((name: "x-amz-date", value: timestamp))
        if let token = credentials.sessionToken {
            headers.append((name: "x-amz-security-token", value: token))
        }
        let (canonicalHeaders, signedHeaders) = Self.canonicalHeaders(headers)
        let canonicalRequest = [
            request.method,
            URIEncoding.path(request.path),
            Self.canonicalQuery(request.query),
            canonicalHeaders,
            signedHeaders,
            request.payload.headerValue,
        ].joined(separator: "\n")
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = [
            "AWS4-HMAC-SHA256", timestamp, scope, PayloadHash.hexDigest(of: Array(canonicalRequest.utf8)),
        ].joined(separator: "\n")
        let signature = Self.hmac(key: signingKey(day: day), Array(stringToSign.utf8)).hexString
        let authorization =
            "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)"
        var added: [(name: String, value: String)] = [(name: "x-amz-date", value: timestamp)]
        if let token = credentials.sessionToken {
            added.append((name: "x-amz-security-token", value: token))
        }
        added.append((name: "authorization", value: authorization))
        return Signature(
            canonicalRequest: canonicalRequest, stringToSign: stringToSign, signature: signature,
            authorization: authorization, addedHeaders: added)
    }

    /// The key for one day: HMAC chained from `AWS4` + secret over the date, region, service and `aws4_request`.
    func signingKey(day: String) -> [UInt8] {
        var key = Self.hmac(key: Array("AWS4\(credentials.secretAccessKey)".utf8), Array(day.utf8))
        for part in [region, service, "aws4_request"] {
            key = Self.hmac(key: key, Array(part.utf8))
        }
        return key
    }

    private static func hmac(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
    }

    /// Names lower-cased and sorted, values trimmed with inner runs of spaces collapsed, repeats joined by commas.
    private static func canonicalHeaders(_ headers: [(name: String, value: String)]) -> (String, String) {
        var values: [String: [String]] = [:]
        for (name, value) in headers {
            values[name.lowercased(), default: []].append(collapsingSpaces(value))
        }
        let names = values.keys.sorted()
        let lines = names.map { "\($0):\(values[$0]!.joined(separator: ","))\n" }.joined()
        return (lines, names.joined(separator: ";"))
    }

    private static func collapsingSpaces(_ value: String) -> String {
        value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
            .trimmingCharacters(in: .whitespaces)
    }

    /// Each name and value encoded, then sorted by name and, for equal names, by value.
    static func canonicalQuery(_ query: [(name: String, value: String)]) -> String {
        query.map { (URIEncoding.component($0.name), URIEncoding.component($0.value)) }
            .sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 < $1.1 }
            .map { "\($0.0)=\($0.1)" }
            .joined(separator: "&")
    }

    /// `yyyyMMdd'T'HHmmss'Z'` in UTC.
    static func timestamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "00" }
        return "\(parts.year ?? 1970)\(two(parts.month))\(two(parts.day))T\(two(parts.hour))\(two(parts.minute))\(two(parts.second))Z"
    }
}
