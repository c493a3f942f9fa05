import CVips
import Foundation

/// libvips, started once per process and set up for untrusted input: only the five loaders
/// Lightbox imports are allowed to run (no SVG, PDF, Matlab or other loaders a crafted file could
/// reach), the operation cache is off, each operation computes on one thread, ORC's generated code
/// is not used (it is not safe on several threads; see below), and its warnings are not printed.
///
/// The cache is off because a cached load is keyed by file name: a file replaced under the same
/// name would give the old pixels. Thumbnails are derived once and stored, so the cache would buy
/// nothing but memory.
enum VipsRuntime {
    /// The loaders left unblocked (each with its file, buffer and source variants).
    static let allowedLoaders = ["VipsForeignLoadJpeg", "VipsForeignLoadPng", "VipsForeignLoadNsgif",
                                 "VipsForeignLoadWebp", "VipsForeignLoadHeif"]

    /// `vips_init` runs on first use; Swift runs a `static let` initializer exactly once, even when
    /// several threads get here together.
    private static let started: Bool = {
        guard vips_init("lightbox") == 0 else { return false }
        // libvips reports damage it decodes around (a JPEG cut short) as GLib warnings on standard
        // error, one per scan line; a service must not print those. Failures still come back as
        // errors from the call that failed.
        g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING, { _, _, _, _ in }, nil)
        vips_cache_set_max(0)
        vips_cache_set_max_mem(0)
        vips_cache_set_max_files(0)
        // One thread per rendering: the caller decides how many renderings run at once (the
        // picker's render pool), so libvips must not add a thread per core to each of them.
        vips_concurrency_set(1)
        // No ORC: libvips compiles ORC programs per operation (reducev, convolutions) and frees them
        // with the operation, and Debian 12's liborc (0.4.33) frees code memory without the lock it
        // allocates it under. Renderings on several pool threads then corrupt ORC's chunk list: an
        // import crashed with SIGSEGV in orc_code_allocate_codemem or a glibc double free
        // (AddressSanitizer found it). libvips then runs the same operations in C.
        vips_vector_set_enabled(0)
        vips_block_untrusted_set(1)
        vips_operation_block_set("VipsForeignLoad", 1)
        for loader in allowedLoaders { vips_operation_block_set(loader, 0) }
        return true
    }()

    /// Starts libvips if need be, or says why it cannot.
    static func start() throws(MediaError) {
        guard started else {
            throw MediaError(.unreadable, "libvips could not start")
        }
    }

    /// Forgets earlier errors, before an operation whose failure `error(for:)` will describe.
    /// libvips keeps one error buffer per process, and operations that succeed can leave messages
    /// in it.
    static func clearErrors() {
        vips_error_clear()
    }

    /// libvips' account of why an operation on `url` failed, or `fallback`. Its messages name files
    /// by full path: the path becomes the file's name (an app may read this sentence), and lines
    /// about other files, left by operations running at the same time, are left out.
    static func error(for url: URL, or fallback: String) -> String {
        guard let copy = vips_error_buffer_copy() else { return fallback }
        defer { g_free(copy) }
        let lines = String(cString: copy).split(whereSeparator: \.isNewline).map { line in
            line.replacingOccurrences(of: url.path, with: url.lastPathComponent)
        }
        let relevant = lines.filter { !$0.contains("/") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return relevant.isEmpty ? fallback : relevant.joined(separator: "; ")
    }
}
