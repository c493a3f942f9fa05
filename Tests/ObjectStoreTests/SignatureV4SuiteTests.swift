import Foundation
@testable import LightboxObjectStore
import Testing

/// Vectors from AWS's published Signature Version 4 test suite (docs.aws.amazon.com/general/latest/gr/signature-v4-test-suite.html,
/// carried in awslabs/aws-c-auth under tests/aws-signing-test-suite/v4): request, canonical request, string to sign, signature.
/// All sign as of 2015-08-30T12:36:00Z for AKIDEXAMPLE, region us-east-1, service "service".
///
/// Which path cases: S3 signs a path encoded once and never normalized, so the suite's `normalize-path`
/// cases (which expect `/example/..` to become `/`) do not apply; their `-unnormalized` twins do, and are here
/// (get-relative-unnormalized, get-slashes-unnormalized, get-space-unnormalized).
struct SignatureV4SuiteTests {
    struct Vector: Sendable, CustomStringConvertible {
        let name: String
        let method: String
        let path: String
        var query: [(name: String, value: String)] = []
        var headers: [(name: String, value: String)] = []
        var payload = PayloadHash.empty
        let canonicalRequest: String
        let canonicalRequestHash: String
        let signature: String
        var description: String { name }
    }

    static let emptyHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    static let date = Date(timeIntervalSince1970: 1_440_938_160)  // 2015-08-30T12:36:00Z
    static let signer = SignatureV4(
        credentials: SigningCredentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1", service: "service")

    static func plainGET(_ path: String, canonicalPath: String) -> String {
        "GET\n\(canonicalPath)\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n\(emptyHash)"
    }

    static let vectors: [Vector] = [
        Vector(name: "get-vanilla", method: "GET", path: "/",
               canonicalRequest: plainGET("/", canonicalPath: "/"),
               canonicalRequestHash: "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63",
               signature: "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31"),
        Vector(name: "get-vanilla-query-order-key-case", method: "GET", path: "/",
               query: [("Param2", "value2"), ("Param1", "value1")],
               canonicalRequest: "GET\n/\nParam1=value1&Param2=value2\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n\(emptyHash)",
               canonicalRequestHash: "816cd5b414d056048ba4f7c5386d6e0533120fb1fcfa93762cf0fc39e2cf19e0",
               signature: "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"),
        Vector(name: "get-vanilla-query-unreserved", method: "GET", path: "/",
               query: [("-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
                        "-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")],
               canonicalRequest: "GET\n/\n-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz=-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n\(emptyHash)",
               canonicalRequestHash: "c30d4703d9f799439be92736156d47ccfb2d879ddf56f5befa6d1d6aab979177",
               signature: "9c3e54bfcdf0b19771a7f523ee5669cdf59bc7cc0884027167c21bb143a40197"),
        Vector(name: "get-vanilla-utf8-query", method: "GET", path: "/", query: [("ሴ", "bar")],
               canonicalRequest: "GET\n/\n%E1%88%B4=bar\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n\(emptyHash)",
               canonicalRequestHash: "eb30c5bed55734080471a834cc727ae56beb50e5f39d1bff6d0d38cb192a7073",
               signature: "2cdec8eed098649ff3a119c94853b13c643bcf08f8b0a1d91e12c9027818dd04"),
        Vector(name: "get-utf8", method: "GET", path: "/ሴ",
               canonicalRequest: plainGET("/ሴ", canonicalPath: "/%E1%88%B4"),
               canonicalRequestHash: "2a0a97d02205e45ce2e994789806b19270cfbbb0921b278ccf58f5249ac42102",
               signature: "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85"),
        Vector(name: "get-unreserved", method: "GET", path: "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
               canonicalRequest: plainGET("", canonicalPath: "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"),
               canonicalRequestHash: "6a968768eefaa713e2a6b16b589a8ea192661f098f37349f4e2c0082757446f9",
               signature: "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f"),
        Vector(name: "get-space-unnormalized", method: "GET", path: "/example space/",
               canonicalRequest: plainGET("", canonicalPath: "/example%20space/"),
               canonicalRequestHash: "63ee75631ed7234ae61b5f736dfc7754cdccfedbff4b5128a915706ee9390d86",
               signature: "652487583200325589f1fba4c7e578f72c47cb61beeca81406b39ddec1366741"),
        Vector(name: "get-slashes-unnormalized", method: "GET", path: "//example//",
               canonicalRequest: plainGET("", canonicalPath: "//example//"),
               canonicalRequestHash: "528ec3105ee1f34ab014bb0a1a45da0ed2742a4fea3555149e5b4d5d201eb240",
               signature: "87cca117541a147f6df867677d98a7d80dff226d2bfca9e4ffa899665623c7e5"),
        Vector(name: "get-relative-unnormalized", method: "GET", path: "/example/..",
               canonicalRequest: plainGET("", canonicalPath: "/example/.."),
               canonicalRequestHash: "0511f456aa502b456d135fcb9d749374a55228f9dbeedda1eacf659e05b0615b",
               signature: "eca7ead57bb5aa5c8e28007acd4ff04e1ff9a0ff3b237ec1554a184887ff9282"),
        Vector(name: "get-header-value-trim", method: "GET", path: "/",
               headers: [("My-Header1", " value1"), ("My-Header2", " \"a   b   c\"")],
               canonicalRequest: "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value1\nmy-header2:\"a b c\"\nx-amz-date:20150830T123600Z\n\nhost;my-header1;my-header2;x-amz-date\n\(emptyHash)",
               canonicalRequestHash: "a726db9b0df21c14f559d0a978e563112acb1b9e05476f0a6a1c7d68f28605c7",
               signature: "acc3ed3afb60bb290fc8d2dd0098b9911fcaa05412b367055dee359757a9c736"),
        Vector(name: "get-header-value-order", method: "GET", path: "/",
               headers: [("My-Header1", "value4"), ("My-Header1", "value1"), ("My-Header1", "value3"), ("My-Header1", "value2")],
               canonicalRequest: "GET\n/\n\nhost:example.amazonaws.com\nmy-header1:value4,value1,value3,value2\nx-amz-date:20150830T123600Z\n\nhost;my-header1;x-amz-date\n\(emptyHash)",
               canonicalRequestHash: "31ce73cd3f3d9f66977ad3dd957dc47af14df92fcd8509f59b349e9137c58b86",
               signature: "08c7e5a9acfcfeb3ab6b2185e75ce8b1deb5e634ec47601a50643f830c755c01"),
        Vector(name: "post-vanilla-query", method: "POST", path: "/", query: [("Param1", "value1")],
               canonicalRequest: "POST\n/\nParam1=value1\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n\(emptyHash)",
               canonicalRequestHash: "9d659678c1756bb3113e2ce898845a0a79dbbc57b740555917687f1b3340fbbd",
               signature: "28038455d6de14eafc1f9222cf5aa6f1a96197d7deb8263271d420d138af7f11"),
        // The body "Param1=value1", hashed and carried in x-amz-content-sha256 as S3 requires.
        Vector(name: "post-x-www-form-urlencoded", method: "POST", path: "/",
               headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Content-Length", "13"),
                         ("x-amz-content-sha256", "9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e")],
               payload: .of(Array("Param1=value1".utf8)),
               canonicalRequest: "POST\n/\n\ncontent-length:13\ncontent-type:application/x-www-form-urlencoded\nhost:example.amazonaws.com\nx-amz-content-sha256:9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e\nx-amz-date:20150830T123600Z\n\ncontent-length;content-type;host;x-amz-content-sha256;x-amz-date\n9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e",
               canonicalRequestHash: "b1edd1d03544c25390e32085d55b57acc9a3961bb59415ff86c45c3d89d16cfb",
               signature: "d3875051da38690788ef43de4db0d8f280229d82040bfac253562e56c3f20e0b"),
    ]

    func sign(_ vector: Vector) -> SignatureV4.Signature {
        Self.signer.sign(
            SignatureV4.Request(method: vector.method, host: "example.amazonaws.com", path: vector.path, query: vector.query,
                                headers: vector.headers, payload: vector.payload),
            at: Self.date)
    }

    @Test(arguments: vectors)
    func canonicalRequestIsTheSuites(_ vector: Vector) {
        #expect(sign(vector).canonicalRequest == vector.canonicalRequest)
    }

    @Test(arguments: vectors)
    func stringToSignIsTheSuites(_ vector: Vector) {
        let expected = "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n\(vector.canonicalRequestHash)"
        #expect(sign(vector).stringToSign == expected)
    }

    @Test(arguments: vectors)
    func signatureAndAuthorizationAreTheSuites(_ vector: Vector) {
        let signed = sign(vector)
        #expect(signed.signature == vector.signature)
        let signedHeaders = vector.canonicalRequest.split(separator: "\n", omittingEmptySubsequences: false).dropLast().last!
        #expect(signed.authorization
            == "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=\(signedHeaders), Signature=\(vector.signature)")
        #expect(signed.addedHeaders.first { $0.name == "x-amz-date" }?.value == "20150830T123600Z")
    }

    /// The session-token case of the suite: the token is signed and sent as x-amz-security-token.
    @Test func sessionTokenIsSignedAndSent() {
        let token = "6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267"
        let signer = SignatureV4(
            credentials: SigningCredentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
                                            sessionToken: token),
            region: "us-east-1", service: "service")
        let signed = signer.sign(SignatureV4.Request(method: "GET", host: "example.amazonaws.com", path: "/", payload: .empty), at: Self.date)
        #expect(signed.signature == "07ec1639c89043aa0e3e2de82b96708f198cceab042d4a97044c66dd9f74e7f8")
        #expect(signed.addedHeaders.contains { $0.name == "x-amz-security-token" && $0.value == token })
    }

    /// AWS's S3 documentation example (“GET Object”, examplebucket/test.txt with Range bytes=0-9, 2013-05-24):
    /// the s3 service, a signed range and x-amz-content-sha256, as the client sends them.
    @Test func s3DocumentationGetObjectExample() {
        let signer = SignatureV4(
            credentials: SigningCredentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
            region: "us-east-1", service: "s3")
        let signed = signer.sign(
            SignatureV4.Request(method: "GET", host: "examplebucket.s3.amazonaws.com", path: "/test.txt",
                                headers: [("Range", "bytes=0-9"), ("x-amz-content-sha256", Self.emptyHash)], payload: .empty),
            at: Date(timeIntervalSince1970: 1_369_353_600))  // 2013-05-24T00:00:00Z
        #expect(signed.authorization
            == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    /// UNSIGNED-PAYLOAD ends the canonical request in place of a hash.
    @Test func unsignedPayloadIsNamedInTheCanonicalRequest() {
        let signed = Self.signer.sign(
            SignatureV4.Request(method: "PUT", host: "example.amazonaws.com", path: "/b/k", payload: .unsigned), at: Self.date)
        #expect(signed.canonicalRequest.hasSuffix("\nUNSIGNED-PAYLOAD"))
    }
}
