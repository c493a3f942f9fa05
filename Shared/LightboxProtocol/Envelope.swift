import Foundation

/// The protocol version this build speaks.
public let protocolVersion = 1

/// The first frame of every request: `{"v":1,"id":"…","op":"picker.pick","body":{…}}`.
public struct RequestEnvelope<Body: Codable & Sendable>: Codable, Sendable {
    public var v: Int
    public var id: String
    public var op: OperationName
    public var body: Body

    public init(id: String, op: OperationName, body: Body) {
        self.v = protocolVersion
        self.id = id
        self.op = op
        self.body = body
    }
}

/// What a receiver reads before it knows the body's type. Every field is optional so that a
/// malformed header still yields its `id` for the error reply.
public struct RequestHead: Decodable, Sendable {
    public var v: Int?
    public var id: String?
    public var op: OperationName?

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // Each field on its own: a wrong `op` must not cost the `id` the error reply needs.
        v = try? container.decodeIfPresent(Int.self, forKey: .v)
        id = try? container.decodeIfPresent(String.self, forKey: .id)
        op = try? container.decodeIfPresent(OperationName.self, forKey: .op)
    }

    enum CodingKeys: String, CodingKey { case v, id, op }

    init(v: Int?, id: String?, op: OperationName?) {
        self.v = v
        self.id = id
        self.op = op
    }

    /// The head of a request's header frame: scanned when the frame is plain JSON
    /// (`RequestHeadScanner`), else decoded by JSONDecoder, whose error then says what is wrong.
    public static func read(from header: Data) throws -> RequestHead {
        if let head = RequestHeadScanner.scan(header) { return head }
        return try WireCoding.decode(RequestHead.self, from: header)
    }
}

extension RequestHead: Equatable {}

/// How a reply relates to its request: `ok` and `error` end it; the others may come many times first.
public enum ReplyStatus: String, Codable, Sendable {
    case ok, error, progress, chunk, event

    public var isFinal: Bool { self == .ok || self == .error }
}

/// The first frame of every reply: `{"v":1,"id":"<request id>","status":"ok","body":{…}}`.
public struct ReplyEnvelope<Body: Codable & Sendable>: Codable, Sendable {
    public var v: Int
    public var id: String
    public var status: ReplyStatus
    public var body: Body

    public init(id: String, status: ReplyStatus, body: Body) {
        self.v = protocolVersion
        self.id = id
        self.status = status
        self.body = body
    }
}

extension ReplyEnvelope: Equatable where Body: Equatable {}
extension RequestEnvelope: Equatable where Body: Equatable {}

/// A reply's header with the body kept as raw JSON, decoded later into the type the caller expects.
public struct ReplyHead: Decodable, Sendable {
    public var v: Int?
    public var id: String
    public var status: ReplyStatus
}

/// The body of an `error` reply.
public typealias ErrorBody = LightboxError

/// A body with no fields. Decodes from `{}`, from `null` and from a missing body.
public struct Empty: Codable, Sendable, Hashable {
    public init() {}
    public init(from decoder: any Decoder) throws {}
    public func encode(to encoder: any Encoder) throws {
        _ = encoder.container(keyedBy: NoKeys.self)
    }
    private enum NoKeys: CodingKey {}
}

extension RequestEnvelope {
    /// Decodes the body of a request whose head was already read; a missing or null body reads as `{}`.
    public static func decodeBody(from header: Data) throws -> Body {
        if let body = WireJSONDecoder.fastDecode(Body.self, member: "body", from: header) { return body }
        // Not read plainly, or no body: JSONDecoder, since a second fast attempt would parse the
        // frame again only to give up the same way (audit batches, whose dates it leaves to JSONDecoder).
        let decoded: BodyOnly
        do {
            decoded = try WireCoding.makeDecoder().decode(BodyOnly.self, from: header)
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            // "Not valid JSON", without a member: JSONDecoder's words for a number outside its type.
            throw WireJSONDecoder.numberMisfit(Body.self, member: "body", in: header) ?? DecodingError.dataCorrupted(context)
        }
        if let body = decoded.body { return body }
        return try WireJSONDecoder.decode(Body.self, from: Data("{}".utf8))
    }

    /// The header with only its body read. Encodable too, so that the fuzzer can compare two
    /// decodings of it by their JSON (`WireFuzzEntry.checkFastDecoding`).
    struct BodyOnly: Codable {
        var body: Body?
    }
}
