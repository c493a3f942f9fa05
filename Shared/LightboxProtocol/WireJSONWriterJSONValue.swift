/// Free-form JSON (`JSONValue`, image property dictionaries) written as it stands, as
/// `JSONValue.encode(to:)` spells it, without a generic container per member. Members go in the
/// dictionary's order: the wire's keys are in no particular order.
extension WireJSONWriter {
    mutating func value(_ value: JSONValue) throws {
        switch value {
        case .null: null()
        case .bool(let value): bool(value)
        // As `JSONValue.encode(to:)` does: integral numbers as integers (so negative zero as 0).
        case .number(let value) where value.rounded() == value && abs(value) < 1e15: integer(Int64(value))
        case .number(let value): try number(value)
        case .string(let value): string(value)
        case .array(let values):
            punctuation(UInt8(ascii: "["))
            for (index, element) in values.enumerated() {
                if index > 0 { punctuation(UInt8(ascii: ",")) }
                try self.value(element)
            }
            punctuation(UInt8(ascii: "]"))
        case .object(let members): try object(members)
        }
    }

    mutating func object(_ members: [String: JSONValue]) throws {
        punctuation(UInt8(ascii: "{"))
        var isFirst = true
        for (name, member) in members {
            if !isFirst { punctuation(UInt8(ascii: ",")) }
            isFirst = false
            string(name)
            punctuation(UInt8(ascii: ":"))
            try value(member)
        }
        punctuation(UInt8(ascii: "}"))
    }
}
