/// Names written into SQL text rather than bound (tables, channels): plain lower-case identifiers
/// only, so nothing a name holds can change the statement.
enum PlainIdentifier {
    static func isValid(_ name: String) -> Bool {
        !name.isEmpty && name.allSatisfy { ($0.isASCII && $0.isLowercase) || ($0.isASCII && $0.isNumber) || $0 == "_" }
    }
}
