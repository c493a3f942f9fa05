/// The camera a person would name: its make and model as EXIF gives them, the make said once
/// ("Apple iPhone 15 Pro"; "Canon EOS R5" from make "Canon", model "Canon EOS R5").
enum CameraName {
    static func make(make: String?, model: String?) -> String? {
        let make = make.map(trimmed) ?? "", model = model.map(trimmed) ?? ""
        if model.isEmpty { return make.isEmpty ? nil : make }
        if make.isEmpty || model.lowercased().hasPrefix(make.lowercased()) { return model }
        return make + " " + model
    }

    private static func trimmed(_ text: String) -> String {
        text.split(whereSeparator: { $0.isWhitespace || $0 == "\0" }).joined(separator: " ")
    }

    /// The same name in SQL, from a catalog row's `properties` JSON (for rows imported before the
    /// catalog kept a camera column).
    static func sqlExpression(properties column: String) -> String {
        let make = "trim(json_extract(\(column), '$.\"{TIFF}\".Make'))", model = "trim(json_extract(\(column), '$.\"{TIFF}\".Model'))"
        return """
            CASE WHEN json_valid(\(column)) = 0 THEN NULL
                 WHEN coalesce(\(model), '') = '' THEN nullif(\(make), '')
                 WHEN coalesce(\(make), '') = '' OR lower(\(model)) LIKE lower(\(make)) || '%' THEN \(model)
                 ELSE \(make) || ' ' || \(model) END
            """
    }
}
