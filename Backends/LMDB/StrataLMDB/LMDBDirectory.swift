import Foundation
import StrataCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Checks and prepares the directory of an LMDB store before LMDB touches it, so that every
/// problem is reported with the path and the operating system's cause.
enum LMDBDirectory {
    /// What is at a location.
    enum State {
        case missing
        case notDirectory
        case emptyDirectory
        case environment
        case foreignDirectory(entries: Int)
    }

    /// The data file of an environment.
    static func dataFile(_ path: String) -> String { path + "/data.mdb" }
    /// The lock file of an environment.
    static func lockFile(_ path: String) -> String { path + "/lock.mdb" }

    /// The path of `url`, or ``StrataError/Code/invalidStoreURL`` when it is empty.
    static func path(of url: StoreURL) throws -> String {
        guard !url.location.isEmpty else {
            throw StrataError(.invalidStoreURL, "'\(url)' names no directory; write lmdb:/path/to/store", location: ["url": url.description])
        }
        return url.location
    }

    /// What is at `path`.
    static func state(_ path: String) throws -> State {
        var info = stat()
        if stat(path, &info) != 0 {
            let error = errno
            if error == ENOENT { return .missing }
            throw failure(path, errno: error, doing: "examining")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { return .notDirectory }
        if access(dataFile(path), F_OK) == 0 { return .environment }
        if errno != ENOENT { throw failure(path, errno: errno, doing: "opening") }
        guard let dir = opendir(path) else { throw failure(path, errno: errno, doing: "listing") }
        defer { closedir(dir) }
        var entries = 0
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." && name != "lock.mdb" { entries += 1 }
        }
        return entries == 0 ? .emptyDirectory : .foreignDirectory(entries: entries)
    }

    /// Checks `url`'s directory and creates it when it is missing and creation is allowed.
    /// Returns the path.
    static func prepare(_ url: StoreURL, options: LMDBOptions) throws -> String {
        let path = try path(of: url)
        switch try state(path) {
        case .environment:
            if access(dataFile(path), R_OK) != 0 { throw failure(dataFile(path), errno: errno, doing: "reading") }
            if !options.readOnly && access(dataFile(path), W_OK) != 0 { throw failure(dataFile(path), errno: errno, doing: "opening for writing") }
            return path
        case .notDirectory:
            throw StrataError(
                .storeCorrupt,
                "\(path) is not an LMDB environment: it is a file, and an LMDB store is a directory holding data.mdb",
                location: ["path": path])
        case .foreignDirectory(let entries):
            throw StrataError(
                .storeCorrupt,
                "\(path) is not an LMDB environment: the directory holds \(entries) other entr\(entries == 1 ? "y" : "ies") and no data.mdb",
                location: ["path": path])
        case .emptyDirectory:
            guard options.createIfMissing, !options.readOnly else {
                throw StrataError(.storeNotFound, "there is no LMDB store in \(path) (the directory is empty)", location: ["path": path])
            }
            if access(path, W_OK | X_OK) != 0 { throw failure(path, errno: errno, doing: "creating the store in") }
            return path
        case .missing:
            guard options.createIfMissing, !options.readOnly else {
                throw StrataError(.storeNotFound, "there is no LMDB store at \(path)", location: ["path": path])
            }
            if mkdir(path, 0o700) != 0 && errno != EEXIST { throw failure(path, errno: errno, doing: "creating the directory") }
            return path
        }
    }

    /// A ``StrataError`` for a failed system call on `path`.
    static func failure(_ path: String, errno code: Int32, doing what: String) -> StrataError {
        let text = String(cString: strerror(code))
        let kind: StrataError.Code
        switch code {
        case ENOENT: kind = .storeNotFound
        case EROFS: kind = .readOnly
        default: kind = .io
        }
        return StrataError(kind, "LMDB store at \(path): \(what) \(path) failed: \(text)", location: ["path": path], underlying: text)
    }
}
