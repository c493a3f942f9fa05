// Linux headers that Glibc's Swift module leaves out.
#include <sys/vfs.h>  // fstatfs, statfs: which file system a descriptor or path is on

// File-descriptor delivery over unix sockets (SCM_RIGHTS) and sealed memory files: Swift cannot
// use the CMSG_* macros, and Glibc's module leaves out memfd_create and the seal commands.
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef MSG_CMSG_CLOEXEC
#define MSG_CMSG_CLOEXEC 0x40000000
#endif

enum {
    LIGHTBOX_F_ADD_SEALS = 1033,
    LIGHTBOX_F_GET_SEALS = 1034,
    LIGHTBOX_F_SEAL_SEAL = 0x0001,
    LIGHTBOX_F_SEAL_SHRINK = 0x0002,
    LIGHTBOX_F_SEAL_GROW = 0x0004,
    LIGHTBOX_F_SEAL_WRITE = 0x0008,
};

/// Sends `length` bytes in one message with `descriptor` attached (SCM_RIGHTS), or none when it is
/// negative. Never raises SIGPIPE. Returns what sendmsg returns.
static inline ssize_t lightbox_send_with_descriptor(int socket, const void *bytes, size_t length, int descriptor) {
    struct iovec vector = { (void *)bytes, length };
    union { struct cmsghdr alignment; char buffer[CMSG_SPACE(sizeof(int))]; } control;
    struct msghdr message;
    memset(&message, 0, sizeof message);
    memset(&control, 0, sizeof control);
    message.msg_iov = &vector;
    message.msg_iovlen = 1;
    if (descriptor >= 0) {
        message.msg_control = control.buffer;
        message.msg_controllen = sizeof control.buffer;
        struct cmsghdr *header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(header), &descriptor, sizeof(int));
    }
    return sendmsg(socket, &message, MSG_NOSIGNAL);
}

/// Receives up to `capacity` bytes; a descriptor that came with them goes to `*descriptor`
/// (close-on-exec), else -1. Any further descriptors a peer attached are closed, not leaked.
static inline ssize_t lightbox_receive_with_descriptor(int socket, void *bytes, size_t capacity, int *descriptor) {
    struct iovec vector = { bytes, capacity };
    union { struct cmsghdr alignment; char buffer[CMSG_SPACE(sizeof(int) * 8)]; } control;
    struct msghdr message;
    memset(&message, 0, sizeof message);
    message.msg_iov = &vector;
    message.msg_iovlen = 1;
    message.msg_control = control.buffer;
    message.msg_controllen = sizeof control.buffer;
    *descriptor = -1;
    ssize_t received = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
    if (received < 0) return received;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header != NULL; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
        size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t index = 0; index < count; index++) {
            int passed;
            memcpy(&passed, CMSG_DATA(header) + index * sizeof(int), sizeof(int));
            if (*descriptor < 0) *descriptor = passed; else close(passed);
        }
    }
    return received;
}

/// The process, user and group at the other end of a unix socket (SO_PEERCRED); 0 on success.
static inline int lightbox_peer_credentials(int socket, int32_t *pid, uint32_t *uid, uint32_t *gid) {
    struct { int32_t pid; uint32_t uid; uint32_t gid; } credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(socket, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *pid = credentials.pid;
    *uid = credentials.uid;
    *gid = credentials.gid;
    return 0;
}

/// A new anonymous memory file that can be sealed (MFD_CLOEXEC | MFD_ALLOW_SEALING).
static inline int lightbox_sealable_memory_file(const char *name) {
    return (int)syscall(SYS_memfd_create, name, 0x0001U | 0x0002U);
}

/// Seals a memory file for good: it can no longer shrink, grow or be written, and no seal can be
/// removed. 0 on success.
static inline int lightbox_seal_for_good(int descriptor) {
    return fcntl(descriptor, LIGHTBOX_F_ADD_SEALS,
                 LIGHTBOX_F_SEAL_SEAL | LIGHTBOX_F_SEAL_SHRINK | LIGHTBOX_F_SEAL_GROW | LIGHTBOX_F_SEAL_WRITE);
}

/// The seals of a memory file (LIGHTBOX_F_SEAL_*), or -1 for a descriptor that is not one.
static inline int lightbox_seals(int descriptor) {
    return fcntl(descriptor, LIGHTBOX_F_GET_SEALS);
}

#include <sys/stat.h>
#include <sys/un.h>

/// The address of the unix socket at `path`; -1 (ENAMETOOLONG) when the path does not fit.
static inline int lightbox_unix_address(const char *path, struct sockaddr_un *address) {
    memset(address, 0, sizeof *address);
    address->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof address->sun_path) { errno = ENAMETOOLONG; return -1; }
    strcpy(address->sun_path, path);
    return 0;
}

/// A non-blocking, close-on-exec unix stream socket listening at `path`, mode 0600: the mode is set
/// before it listens, so no one can connect while it is wider. A socket left at `path` by an
/// earlier run is replaced; anything else there is not (EEXIST). -1 with errno on failure.
static inline int lightbox_private_unix_listener(const char *path, int backlog) {
    struct sockaddr_un address;
    if (lightbox_unix_address(path, &address) != 0) return -1;
    struct stat existing;
    if (lstat(path, &existing) == 0) {
        if (!S_ISSOCK(existing.st_mode)) { errno = EEXIST; return -1; }
        unlink(path);
    }
    int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (listener < 0) return -1;
    if (bind(listener, (struct sockaddr *)&address, sizeof address) != 0 || chmod(path, 0600) != 0 || listen(listener, backlog) != 0) {
        int saved = errno;
        close(listener);
        unlink(path);
        errno = saved;
        return -1;
    }
    return listener;
}

/// Accepts one connection as a non-blocking, close-on-exec socket; -1 with errno (EAGAIN: none waiting).
static inline int lightbox_accept_nonblocking(int listener) {
    return (int)syscall(SYS_accept4, listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

/// A blocking, close-on-exec unix stream socket connected to `path`, whose reads and writes give
/// up after `seconds`; -1 with errno on failure.
static inline int lightbox_unix_connect(const char *path, int seconds) {
    struct sockaddr_un address;
    if (lightbox_unix_address(path, &address) != 0) return -1;
    int connection = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (connection < 0) return -1;
    struct timeval limit = { seconds, 0 };
    setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
    if (connect(connection, (struct sockaddr *)&address, sizeof address) != 0) {
        int saved = errno;
        close(connection);
        errno = saved;
        return -1;
    }
    return connection;
}

/// Starts writing the file's dirty pages to disk and returns without waiting (sync_file_range with
/// SYNC_FILE_RANGE_WRITE, which Glibc's module leaves out): a later fsync then finds them written
/// or on their way. Not a durability guarantee by itself (no metadata, no cache flush).
static inline int lightbox_start_writeback(int descriptor) {
    return (int)syscall(SYS_sync_file_range, descriptor, (int64_t)0, (int64_t)0, 2U);
}
