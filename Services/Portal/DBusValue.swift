import CGio

/// A GVariant, the value D-Bus messages carry, held by one reference. GVariants are immutable and
/// their reference counts atomic, so a value may be read and passed on from any thread.
final class DBusValue: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Takes ownership of `pointer`; a floating reference (a value just made) is sunk first.
    init(taking pointer: OpaquePointer) {
        self.pointer = g_variant_take_ref(pointer)
    }

    /// Holds a reference of its own to a value someone else owns (a method call's parameters).
    init(borrowing pointer: OpaquePointer) {
        self.pointer = g_variant_ref_sink(pointer)
    }

    deinit { g_variant_unref(pointer) }

    /// The D-Bus type signature (`a{sv}`, `(sa(us))`).
    var typeString: String { String(cString: g_variant_get_type_string(pointer)) }

    func isOfType(_ signature: String) -> Bool {
        guard g_variant_type_string_is_valid(signature) != 0 else { return false }
        let type = g_variant_type_new(signature)
        defer { g_variant_type_free(type) }
        return g_variant_is_of_type(pointer, type) != 0
    }

    /// Children of a container (array, tuple, dictionary entry, variant).
    var count: Int { isContainer ? Int(g_variant_n_children(pointer)) : 0 }
    var isContainer: Bool { g_variant_is_container(pointer) != 0 }

    func child(_ index: Int) -> DBusValue? {
        guard index >= 0, index < count else { return nil }
        return DBusValue(taking: g_variant_get_child_value(pointer, gsize(index)))
    }

    var children: [DBusValue] { (0..<count).compactMap(child) }

    /// The string of a `s`, `o` or `g` value.
    var string: String? {
        guard isOfType("s") || isOfType("o") || isOfType("g") else { return nil }
        return String(cString: g_variant_get_string(pointer, nil))
    }

    var bool: Bool? { isOfType("b") ? g_variant_get_boolean(pointer) != 0 : nil }
    var uint32: UInt32? { isOfType("u") ? g_variant_get_uint32(pointer) : nil }

    /// The value under `key` of an `a{sv}` dictionary when it has the type `signature`; nil when
    /// absent or of another type.
    func lookup(_ key: String, as signature: String) -> DBusValue? {
        guard isOfType("a{sv}"), g_variant_type_string_is_valid(signature) != 0 else { return nil }
        let type = g_variant_type_new(signature)
        defer { g_variant_type_free(type) }
        return g_variant_lookup_value(pointer, key, type).map { DBusValue(taking: $0) }
    }

    /// Whether an `a{sv}` dictionary has `key`, of any type.
    func hasKey(_ key: String) -> Bool {
        guard isOfType("a{sv}") else { return false }
        return g_variant_lookup_value(pointer, key, nil).map { DBusValue(taking: $0) } != nil
    }

    /// GVariant's text form, for log lines.
    var text: String {
        let printed = g_variant_print(pointer, 1)
        defer { g_free(printed) }
        return printed.map { String(cString: $0) } ?? ""
    }

    /// A FileChooser method's reply, `(u a{sv})`: the response, and the `uris` (always read-only:
    /// `writable` false) and `current_filter` results when given.
    static func fileChooserReply(_ response: UInt32, uris: [String]? = nil, currentFilter: DBusValue? = nil) -> DBusValue {
        // A NULL-terminated array of C strings (never empty, so its storage has an address).
        var pointers: [UnsafePointer<gchar>?] = (uris ?? []).map { UnsafePointer(strdup($0)) } + [nil]
        defer { pointers.forEach { free(UnsafeMutableRawPointer(mutating: $0)) } }
        let reply = pointers.withUnsafeMutableBufferPointer { buffer in
            lightbox_file_chooser_reply(response, uris == nil ? 0 : 1, buffer.baseAddress, gssize(uris?.count ?? 0), currentFilter?.pointer)
        }
        return DBusValue(taking: reply!)
    }

    /// The empty tuple.
    static var unit: DBusValue { DBusValue(taking: lightbox_variant_unit()) }
}
