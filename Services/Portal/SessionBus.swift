import CGio
import Foundation
import Synchronization

/// A D-Bus error as the bus carries it: a name (`org.freedesktop.DBus.Error.ServiceUnknown`) and
/// a message. A forwarded call's error is passed back with both unchanged.
struct DBusError: Error, CustomStringConvertible {
    var name: String
    var message: String

    init(_ name: String, _ message: String) {
        self.name = name
        self.message = message
    }

    /// The error a GError stands for; frees it.
    init(consuming error: UnsafeMutablePointer<GError>) {
        defer { g_error_free(error) }
        if let remote = g_dbus_error_get_remote_error(error) {
            name = String(cString: remote)
            g_free(remote)
            g_dbus_error_strip_remote_error(error)
        } else {
            let encoded = g_dbus_error_encode_gerror(error)
            name = encoded.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed"
            g_free(encoded)
        }
        message = error.pointee.message.map { String(cString: $0) } ?? ""
    }

    static let failed = "org.freedesktop.DBus.Error.Failed"

    var description: String { "\(name): \(message)" }
}

/// A method call received on an exported object, answered exactly once from any thread: by
/// `reply`, by `fail`, or, if it is dropped unanswered, with `org.freedesktop.DBus.Error.Failed`
/// (a caller never waits for an answer that cannot come).
final class DBusMethodCall: @unchecked Sendable {
    // @unchecked: `invocation` is used once, under `answered` (GDBus replies are thread-safe).
    let sender: String
    let path: String
    let interface: String
    let method: String
    let parameters: DBusValue
    private let invocation: OpaquePointer
    private let answered = Atomic<Bool>(false)

    /// Takes the handler's reference to `invocation`, which answering gives back to GDBus.
    init(sender: String, path: String, interface: String, method: String, parameters: DBusValue, invocation: OpaquePointer) {
        self.sender = sender
        self.path = path
        self.interface = interface
        self.method = method
        self.parameters = parameters
        self.invocation = invocation
    }

    deinit {
        fail(DBusError(DBusError.failed, "lightbox-portal could not answer \(interface).\(method)."))
    }

    /// Answers with `value` (a tuple of the method's out arguments).
    func reply(_ value: DBusValue) {
        guard claim() else { return }
        g_dbus_method_invocation_return_value(invocation, value.pointer)
    }

    func fail(_ error: DBusError) {
        guard claim() else { return }
        g_dbus_method_invocation_return_dbus_error(invocation, error.name, error.message)
    }

    var isAnswered: Bool { answered.load(ordering: .acquiring) }

    private func claim() -> Bool {
        !answered.exchange(true, ordering: .acquiringAndReleasing)
    }
}

/// An object exported on the bus: its registration id, for unexporting.
struct DBusRegistration: Sendable, Hashable {
    let id: UInt32
}

/// Interface descriptions parsed from introspection XML. GDBus checks incoming calls against them
/// (a call with the wrong signature never reaches a handler) and answers Introspect and
/// org.freedesktop.DBus.Properties from them.
final class DBusInterfaces: @unchecked Sendable {
    // @unchecked: parsed once, never changed, kept for the life of the process.
    private let node: UnsafeMutablePointer<GDBusNodeInfo>

    init(xml: String) throws(DBusError) {
        var error: UnsafeMutablePointer<GError>?
        guard let node = g_dbus_node_info_new_for_xml(xml, &error) else { throw DBusError(consuming: error!) }
        self.node = node
    }

    func interface(_ name: String) -> UnsafeMutablePointer<GDBusInterfaceInfo>? {
        g_dbus_node_info_lookup_interface(node, name)
    }
}

/// The session bus, through one GDBus connection whose handlers run on `loop`.
final class SessionBus: @unchecked Sendable {
    // @unchecked: GDBusConnection is thread-safe; the calls that depend on the calling thread's
    // main context (exporting, asynchronous calls) are made on `loop`.
    private let connection: OpaquePointer
    let loop: GLibLoop

    /// Connects to the session bus of DBUS_SESSION_BUS_ADDRESS. The connection is made on the loop's
    /// thread, where GDBus tells of its end: `closed` is called then (the bus went away, or the
    /// session ended).
    static func connect(on loop: GLibLoop, closed: @escaping @Sendable () -> Void) async throws(DBusError) -> SessionBus {
        try await loop.run { () -> Result<SessionBus, DBusError> in
            do throws(DBusError) {
                let bus = try SessionBus(loop: loop)
                let handler = Unmanaged.passRetained(ClosedHandler(closed)).toOpaque()
                lightbox_dbus_on_closed(bus.connection, { handler in
                    Unmanaged<ClosedHandler>.fromOpaque(handler!).takeUnretainedValue().closed()
                }, handler)
                return .success(bus)
            } catch {
                return .failure(error)
            }
        }.get()
    }

    /// What to call when the connection closes; lives as long as the process (as the connection does).
    private final class ClosedHandler {
        let closed: @Sendable () -> Void
        init(_ closed: @escaping @Sendable () -> Void) { self.closed = closed }
    }

    private init(loop: GLibLoop) throws(DBusError) {
        var error: UnsafeMutablePointer<GError>?
        guard let connection = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, &error) else { throw DBusError(consuming: error!) }
        self.connection = connection
        self.loop = loop
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(connection)) }

    /// The connection's unique name on the bus (`:1.42`).
    var uniqueName: String { g_dbus_connection_get_unique_name(connection).map { String(cString: $0) } ?? "" }

    /// Becomes the owner of `name`, or says who has it: a second backend never queues behind the first.
    func own(_ name: String) throws(DBusError) {
        var error: UnsafeMutablePointer<GError>?
        let doNotQueue: UInt32 = 4
        switch lightbox_dbus_request_name(connection, name, doNotQueue, &error) {
        case 1, 4: return
        case 0: throw DBusError(consuming: error!)
        default: throw DBusError("org.freedesktop.DBus.Error.AddressInUse", "Another program owns \(name) on this session bus.")
        }
    }

    func release(_ name: String) {
        lightbox_dbus_release_name(connection, name)
    }

    /// Exports `interface` at `path`; `handler` receives each call on the loop's thread and must
    /// not block it. Call on the loop's thread (from a handler, or through `loop.run`).
    func export(_ interface: UnsafeMutablePointer<GDBusInterfaceInfo>, at path: String,
                handler: @escaping @Sendable (DBusMethodCall) -> Void) throws(DBusError) -> DBusRegistration {
        let object = Unmanaged.passRetained(ExportedObject(handler)).toOpaque()
        var vtable = GDBusInterfaceVTable()
        vtable.method_call = { _, sender, path, interface, method, parameters, invocation, object in
            let exported = Unmanaged<ExportedObject>.fromOpaque(object!).takeUnretainedValue()
            exported.handler(DBusMethodCall(
                sender: sender.map { String(cString: $0) } ?? "", path: String(cString: path!), interface: String(cString: interface!),
                method: String(cString: method!), parameters: DBusValue(borrowing: parameters!), invocation: invocation!))
        }
        var error: UnsafeMutablePointer<GError>?
        let id = g_dbus_connection_register_object(connection, path, interface, &vtable, object, { object in
            Unmanaged<ExportedObject>.fromOpaque(object!).release()
        }, &error)
        guard id != 0 else { throw DBusError(consuming: error!) }
        return DBusRegistration(id: id)
    }

    /// Stops exporting an object; calls to it are answered UnknownObject by GDBus. Any thread.
    func unexport(_ registration: DBusRegistration) {
        g_dbus_connection_unregister_object(connection, registration.id)
    }

    /// Calls `method` and returns its reply as it came, or its error. `timeout` in milliseconds;
    /// `Int32.max` waits as long as the callee takes (a person choosing a file).
    func call(destination: String, path: String, interface: String, method: String, parameters: DBusValue?,
              timeout: Int32 = Int32.max) async throws(DBusError) -> DBusValue {
        let result: Result<DBusValue, DBusError> = await withCheckedContinuation { continuation in
            loop.perform { [self] in
                let completion = Unmanaged.passRetained(CallCompletion(continuation)).toOpaque()
                // The parameters stay alive in this closure until GDBus has taken its own reference.
                g_dbus_connection_call(connection, destination, path, interface, method, parameters?.pointer, nil,
                                       G_DBUS_CALL_FLAGS_NONE, timeout, nil, { source, result, completion in
                    let done = Unmanaged<CallCompletion>.fromOpaque(completion!).takeRetainedValue()
                    var error: UnsafeMutablePointer<GError>?
                    if let value = g_dbus_connection_call_finish(OpaquePointer(source), result, &error) {
                        done.continuation.resume(returning: .success(DBusValue(taking: value)))
                    } else {
                        done.continuation.resume(returning: .failure(DBusError(consuming: error!)))
                    }
                }, completion)
            }
        }
        return try result.get()
    }

    private final class ExportedObject {
        let handler: @Sendable (DBusMethodCall) -> Void
        init(_ handler: @escaping @Sendable (DBusMethodCall) -> Void) { self.handler = handler }
    }

    private final class CallCompletion {
        let continuation: CheckedContinuation<Result<DBusValue, DBusError>, Never>
        init(_ continuation: CheckedContinuation<Result<DBusValue, DBusError>, Never>) { self.continuation = continuation }
    }
}
