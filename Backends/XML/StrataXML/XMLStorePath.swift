import Foundation
import StrataCore

/// Where an XML store really lives, and the checks that keep its files ordinary files.
///
/// A store's path is resolved once, when it is opened: a symbolic link anywhere in it, `..`
/// and `.` are followed to the real file (for a new store, the real directory and the name), and
/// the data file, its temporary files, the writer lock (`NAME.lock`) and the key ledger
/// (`NAME.keys`) are all named from that real path. So a save through a link replaces the file
/// the link points at and leaves the link a link, and two spellings of one store share one lock
/// and one ledger.
///
/// Every file of a store is opened with `O_NONBLOCK` and `O_NOFOLLOW` and checked with `fstat`
/// before it is used: a FIFO, a socket, a device or a directory at the store's path (or its lock
/// or ledger) is refused at once with ``StrataError/Code/io`` instead of blocking the open or the
/// first read forever.
enum XMLStorePath {
    /// How many symbolic links a path may go through, as the kernel's `ELOOP` limit.
    static let maximumLinks = 40

    /// The real path of the store file named `path`.
    ///
    /// An existing file (or a link to one) gives its `realpath`. A name that does not exist
    /// (a new store) gives the real path of its directory followed by the name; a dangling link
    /// gives the path the link points at, resolved the same way, so the store is created where the
    /// link points. When the directory does not exist either, `path` is returned unchanged and
    /// opening reports that as it would have.
    ///
    /// - Throws: ``StrataError/Code/io`` when the path loops through links or cannot be resolved.
    static func resolve(_ path: String) throws -> String {
        var candidate = path
        for _ in 0..<maximumLinks {
            if let real = realpath(candidate, nil) {
                defer { free(real) }
                return String(cString: real)
            }
            let code = errno
            guard code == ENOENT else {
                throw StrataError(
                    .io, "cannot resolve the path \(path) of the XML store", location: ["path": path],
                    underlying: String(cString: strerror(code)))
            }
            let url = URL(fileURLWithPath: candidate)
            var info = stat()
            if lstat(candidate, &info) == 0, info.st_mode & S_IFMT == S_IFLNK {
                // A dangling link: follow it to the name it gives.
                var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
                let length = readlink(candidate, &buffer, buffer.count - 1)
                guard length > 0 else {
                    throw StrataError(
                        .io, "cannot read the symbolic link \(candidate)", location: ["path": path],
                        underlying: String(cString: strerror(errno)))
                }
                let target = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                candidate = target.hasPrefix("/") ? target : url.deletingLastPathComponent().path + "/" + target
                continue
            }
            let directory = url.deletingLastPathComponent().path
            guard let realDirectory = realpath(directory.isEmpty ? "." : directory, nil) else { return path }
            defer { free(realDirectory) }
            let parent = String(cString: realDirectory)
            return (parent == "/" ? "" : parent) + "/" + url.lastPathComponent
        }
        throw StrataError(
            .io, "the path \(path) of the XML store goes through more than \(maximumLinks) symbolic links",
            location: ["path": path], underlying: String(cString: strerror(ELOOP)))
    }

    /// Opens `path` (already resolved) with `flags`, never blocking and never following a link,
    /// and makes sure it is a regular file.
    ///
    /// - Parameter role: what the file is to the store, for messages (`"XML store"`,
    ///   `"lock file"`, `"key ledger"`).
    /// - Returns: the descriptor, in blocking mode again.
    /// - Throws: ``StrataError/Code/io`` naming the path and what it is when it is not a regular
    ///   file; the open's own error (``StrataError/Code/storeNotFound`` for a missing file opened
    ///   without `O_CREAT`, ``StrataError/Code/io`` or ``StrataError/Code/readOnly``) otherwise.
    static func openRegularFile(_ path: String, flags: Int32, mode: mode_t = 0o600, role: String) throws -> Int32 {
        let fd = open(path, flags | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW, mode)
        guard fd >= 0 else {
            let code = errno
            if code == ELOOP {
                throw StrataError(
                    .io, "the \(role) \(path) is a symbolic link, which it must not be", location: ["path": path],
                    underlying: String(cString: strerror(code)))
            }
            if code == ENOENT && flags & O_CREAT == 0 {
                throw StrataError(
                    .storeNotFound, "cannot open the \(role) \(path) for reading", location: ["path": path],
                    underlying: String(cString: strerror(code)))
            }
            // A socket cannot be opened at all (ENXIO), a directory not for writing (EISDIR).
            var info = stat()
            if lstat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
                throw notRegular(path, mode: info.st_mode, role: role)
            }
            if flags & O_ACCMODE == O_RDONLY {
                throw StrataError(
                    .io, "cannot open the \(role) \(path) for reading", location: ["path": path],
                    underlying: String(cString: strerror(code)))
            }
            throw XMLAtomicFile.ioError("cannot open the \(role) \(path)", path: path)
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = XMLAtomicFile.ioError("cannot stat the \(role) \(path)", path: path)
            close(fd)
            throw error
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw notRegular(path, mode: info.st_mode, role: role)
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    /// What a file of mode `mode` is: its name (`"FIFO"`, `"directory"`) and, for messages, the
    /// name with its article and a gloss (`"a FIFO (named pipe)"`).
    static func kind(of mode: mode_t) -> (name: String, phrase: String) {
        (FileKind.name(of: mode), FileKind.phrase(of: mode))
    }

    /// The error for a store file that is something else than a regular file.
    static func notRegular(_ path: String, mode: mode_t, role: String) -> StrataError {
        let kind = kind(of: mode)
        return StrataError(
            .io,
            "the \(role) \(path) is \(kind.phrase), not a regular file; an XML store and its lock file and key ledger are regular files",
            location: ["path": path, "fileType": kind.name])
    }
}
