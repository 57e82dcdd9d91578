import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The kind of file a `stat` mode describes, in words, for the errors that refuse a FIFO, a
/// socket or a device where a store's file belongs.
package enum FileKind {
    /// The kind's name (`"FIFO"`, `"directory"`), for an error's location fields.
    package static func name(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: return "FIFO"
        case S_IFSOCK: return "socket"
        case S_IFCHR: return "character device"
        case S_IFBLK: return "block device"
        case S_IFDIR: return "directory"
        case S_IFLNK: return "symbolic link"
        case S_IFREG: return "regular file"
        default: return "unknown"
        }
    }

    /// The kind with its article and a gloss (`"a FIFO (named pipe)"`), for messages.
    package static func phrase(of mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: return "a FIFO (named pipe)"
        case S_IFREG, S_IFDIR, S_IFSOCK, S_IFCHR, S_IFBLK, S_IFLNK: return "a " + name(of: mode)
        default: return "a file of unknown type \(String(mode & S_IFMT, radix: 8))"
        }
    }
}
