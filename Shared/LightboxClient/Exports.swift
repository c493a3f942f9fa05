// One `import LightboxClient` gives an app every type its API uses: the wire types (configurations,
// filters, UTTypes, errors) and the transport types that appear in the client's signatures.
@_exported import LightboxProtocol
@_exported import struct LightboxTransport.CurveKeyPair
@_exported import class LightboxTransport.DealerConnection
@_exported import struct LightboxTransport.IncomingReply
@_exported import struct LightboxTransport.KeyDirectory
@_exported import struct LightboxTransport.TransportError
