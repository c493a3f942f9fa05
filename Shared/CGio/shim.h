// GLib's GIO for lightbox-portal: GDBus, the session bus connection xdg-desktop-portal backends
// speak. Its include path comes from pkg-config's gobject-2.0 (gio-2.0.pc adds -pthread, which
// SwiftPM rejects); the libraries are linked by the module map.
//
// GVariant's builders and getters take format strings with variadic arguments, which Swift cannot
// call, so the few values lightbox-portal builds are made here with fixed arguments.
#include <gio/gio.h>

/// The (u a{sv}) reply of a FileChooser method: the response code, and `uris` (when `has_uris`;
/// `count` of them, with `writable` false: xdg-desktop-portal exports files to a sandboxed app
/// read-write unless the backend says otherwise) and `current_filter` (when not NULL, a (sa(us))
/// value) in its results.
static inline GVariant *lightbox_file_chooser_reply(guint32 response, gboolean has_uris, const gchar *const *uris, gssize count,
                                                    GVariant *current_filter) {
    GVariantBuilder results;
    g_variant_builder_init(&results, G_VARIANT_TYPE_VARDICT);
    if (has_uris) {
        g_variant_builder_add(&results, "{sv}", "uris", g_variant_new_strv(uris, count));
        g_variant_builder_add(&results, "{sv}", "writable", g_variant_new_boolean(FALSE));
    }
    if (current_filter != NULL) g_variant_builder_add(&results, "{sv}", "current_filter", current_filter);
    return g_variant_new("(u@a{sv})", response, g_variant_builder_end(&results));
}

/// org.freedesktop.DBus.RequestName(name, flags) on `connection`: the bus's answer (1 primary
/// owner, 2 in the queue, 3 exists, 4 already the owner), or 0 with `error` set.
static inline guint32 lightbox_dbus_request_name(GDBusConnection *connection, const gchar *name, guint32 flags, GError **error) {
    GVariant *reply = g_dbus_connection_call_sync(connection, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                  "org.freedesktop.DBus", "RequestName", g_variant_new("(su)", name, flags),
                                                  G_VARIANT_TYPE("(u)"), G_DBUS_CALL_FLAGS_NONE, -1, NULL, error);
    if (reply == NULL) return 0;
    guint32 answer = 0;
    g_variant_get(reply, "(u)", &answer);
    g_variant_unref(reply);
    return answer;
}

/// org.freedesktop.DBus.ReleaseName(name), ignoring the answer (the connection may be closing).
static inline void lightbox_dbus_release_name(GDBusConnection *connection, const gchar *name) {
    GVariant *reply = g_dbus_connection_call_sync(connection, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                                  "org.freedesktop.DBus", "ReleaseName", g_variant_new("(s)", name),
                                                  NULL, G_DBUS_CALL_FLAGS_NONE, -1, NULL, NULL);
    if (reply != NULL) g_variant_unref(reply);
}

/// The empty tuple, the reply of a method without out arguments (Request.Close).
static inline GVariant *lightbox_variant_unit(void) {
    return g_variant_new_tuple(NULL, 0);
}

/// A function and its data, called when a connection closes.
typedef struct {
    void (*callback)(void *);
    void *data;
} LightboxClosedHandler;

static void lightbox_dbus_closed_trampoline(GDBusConnection *connection, gboolean remote_peer_vanished, GError *error, gpointer user_data) {
    (void)connection; (void)remote_peer_vanished; (void)error;
    LightboxClosedHandler *handler = (LightboxClosedHandler *)user_data;
    handler->callback(handler->data);
}

/// Calls `callback(data)` (in the connection's main context) when `connection` closes, instead of
/// GDBus's default of raising SIGTERM in whichever thread notices: a thread that blocks SIGTERM, as
/// Swift's concurrency threads and those they start do, would keep it pending for ever.
static inline void lightbox_dbus_on_closed(GDBusConnection *connection, void (*callback)(void *), void *data) {
    LightboxClosedHandler *handler = g_new0(LightboxClosedHandler, 1);
    handler->callback = callback;
    handler->data = data;
    g_dbus_connection_set_exit_on_close(connection, FALSE);
    g_signal_connect_data(connection, "closed", G_CALLBACK(lightbox_dbus_closed_trampoline), handler,
                          (GClosureNotify)(void (*)(void))g_free, (GConnectFlags)0);
}
