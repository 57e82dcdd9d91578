import CStrataFiles
import Foundation

/// A new store built at a staging location beside the store at a URL, then put in its place in
/// one step: a migration that streams a store into a new one and a copy that replaces a store
/// both build the new store there, so that until the swap the old store is untouched and whole,
/// and a process killed while building leaves only a staging store (removed at the next run).
///
/// Where the staging store is and how it is put in place:
/// - a backend that adopts ``StoreReplacing`` names and swaps its own (a PostgreSQL schema);
/// - a store that is one regular file (SQLite, XML): a hidden file beside it, `.NAME<suffix>`,
///   put in place by `rename`, which is atomic; a journal of the old file (`-wal`, `-journal`)
///   that still holds data would not match the new file, so it stops the swap;
/// - a store that is a directory (LMDB): a hidden directory beside it, put in place by removing
///   the old store and renaming the new one: only between those two steps is there no store at
///   the location, and the new one is then whole at the staging location;
/// - a `memory:` store: `NAME<suffix>`, which the caller copies back (a memory store cannot be
///   renamed).
package struct StoreStaging {
    /// The store's location: for a store in files, its real path (symbolic links, `.` and `..`
    /// followed), so that the swap replaces the file a link points at and the link stays a link.
    package let url: StoreURL
    /// Where the new store is built.
    package let staging: StoreURL
    /// The backend of both stores.
    package let backend: any StoreBackend

    /// The staging location for the store at `url`, named with `suffix` (for example
    /// `.strata-migrating`).
    package init(for url: StoreURL, backend: any StoreBackend, suffix: String) throws {
        self.backend = backend
        if let replacing = backend as? any StoreReplacing {
            self.url = url
            staging = try replacing.stagingURL(for: url)
        } else if url.scheme == "memory" {
            guard !url.location.isEmpty else {
                throw StrataError(
                    .unsupported,
                    "a private memory: store has no name, so it cannot be reopened to replace it; name it (memory:NAME)",
                    location: ["url": url.description])
            }
            self.url = url
            staging = StoreURL(scheme: url.scheme, location: url.location + suffix)
        } else {
            let real = Self.realLocation(of: url)
            self.url = real
            let file = URL(fileURLWithPath: real.location)
            var staging = real
            staging.location =
                file.deletingLastPathComponent().appendingPathComponent(".\(file.lastPathComponent)\(suffix)").path
            self.staging = staging
        }
    }

    /// Whether the backend swaps the two stores itself (``StoreReplacing``).
    package var isReplacedByBackend: Bool { backend is any StoreReplacing }

    /// `url` with its location resolved to the real file (symbolic links, `.` and `..`
    /// followed), or `url` itself for a `memory:` store or a location that does not exist.
    package static func realLocation(of url: StoreURL) -> StoreURL {
        guard url.scheme != "memory", let real = realpath(url.location, nil) else { return url }
        defer { free(real) }
        var resolved = url
        resolved.location = String(cString: real)
        return resolved
    }

    /// Removes the store at the staging location, if any, and the files a backend made beside
    /// it (lock files).
    package func removeStaging() throws {
        try backend.destroyStore(at: staging)
        // A store without files (in memory, on a server) has none, and its location is no path:
        // a server's `/DATABASE` would name the root directory.
        if try !backend.files(of: staging).isEmpty { Self.removeSidecars(of: staging.location) }
    }

    /// Refuses a store whose journal (`-wal`, `-journal`) holds data: after a swap it would
    /// belong to another file.
    ///
    /// - Throws: ``StrataError/Code/unsupported`` naming the journal.
    package func checkNoJournal() throws {
        for journal in [url.location + "-wal", url.location + "-journal"] {
            if let size = (try? FileManager.default.attributesOfItem(atPath: journal))?[.size] as? Int, size > 0 {
                throw StrataError(
                    .unsupported,
                    "\(journal) holds a journal of the store at \(url) that was not written back (a process that wrote the store did not close it), which would not match a replaced file; open and close the store once (strata inspect) and try again; the store is unchanged",
                    location: ["url": url.description, "journal": journal])
            }
        }
    }

    /// Puts the store built at the staging location in place of the one at ``url`` (or where
    /// there is none). A `memory:` store is the caller's to copy back.
    ///
    /// - Parameter expected: for a store in files, the identities of the old store's file as
    ///   the caller found it (`nil`: there was none) and of the staged file as it built it: if
    ///   either changed since, nothing is replaced (``StrataError/Code/storeBusy``).
    package func putInPlace(expected: (store: FileIdentity?, staged: FileIdentity?) = (nil, nil)) throws {
        if let replacing = backend as? any StoreReplacing {
            try replacing.replaceStore(at: url, withStoreAt: staging)
            return
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: staging.location, isDirectory: &isDirectory) else {
            throw StrataError(
                .storeNotFound, "there is no new store at \(staging) to put in place of \(url)",
                location: ["url": url.description, "staging": staging.description])
        }
        if let staged = expected.staged, FileIdentity(path: staging.location) != staged {
            throw StrataError(
                .storeBusy,
                "the new copy \(staging.location) of \(url) was replaced by another process before it was put in place; the store is unchanged: run it again",
                location: ["url": url.description, "staging": staging.description])
        }
        let now = FileIdentity(path: url.location)
        if let store = expected.store, now != store {
            try? removeStaging()
            throw StrataError(
                .storeBusy,
                "the store at \(url) was changed by another process meanwhile; it is unchanged, so that change is not lost: run it again",
                location: ["url": url.description])
        }
        if expected.store == nil, now != nil {
            throw StrataError(
                .storeBusy,
                "another process made a store at \(url) meanwhile; it is left as it is, and the new store is at \(staging.location)",
                location: ["url": url.description, "staging": staging.description])
        }
        if isDirectory.boolValue {
            // A directory cannot be renamed over a full one: swap the two in one step where the
            // system can, so that a process killed meanwhile leaves the old store or the new one
            // in place, never neither; the old one, now at the staging location, goes after.
            if FileManager.default.fileExists(atPath: url.location) {
                if strata_exchange_paths(staging.location, url.location) == 0 {
                    // The new store is in place: a failure to remove the old one must not report
                    // the replacement as failed; the next staging at this place removes it.
                    try? removeStaging()
                    Self.syncDirectory(of: url.location)
                    return
                }
                try backend.destroyStore(at: url)
            }
        } else {
            try checkNoJournal()
        }
        guard rename(staging.location, url.location) == 0 else {
            let code = errno
            throw StrataError(
                .io,
                "cannot rename \(staging.location) to \(url.location): \(String(cString: strerror(code))); the new store is at \(staging.location)",
                location: ["path": url.location, "staging": staging.description])
        }
        Self.syncDirectory(of: url.location)
        Self.removeSidecars(of: staging.location)
    }

    /// Flushes the directory holding `path`, so that a rename in it survives a crash.
    private static func syncDirectory(of path: String) {
        let fd = open(URL(fileURLWithPath: path).deletingLastPathComponent().path, O_RDONLY)
        if fd >= 0 {
            _ = fsync(fd)
            close(fd)
        }
    }

    /// Removes files beside `path` whose name starts with its name (lock files a backend made).
    private static func removeSidecars(of path: String) {
        let file = URL(fileURLWithPath: path)
        let directory = file.deletingLastPathComponent()
        let prefix = file.lastPathComponent
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        where name.hasPrefix(prefix) {
            unlink(directory.appendingPathComponent(name).path)
        }
    }

    /// What identifies one version of a file: a save or a rebuild replaces it (a new inode) or
    /// changes its size or modification time.
    package struct FileIdentity: Equatable {
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modified: timespec

        /// The identity of the file at `path` (not following a final symbolic link), or `nil`.
        package init?(path: String) {
            var info = stat()
            guard lstat(path, &info) == 0 else { return nil }
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = Int64(info.st_size)
            modified = info.modificationTime
        }

        package static func == (a: FileIdentity, b: FileIdentity) -> Bool {
            a.device == b.device && a.inode == b.inode && a.size == b.size && a.modified.tv_sec == b.modified.tv_sec
                && a.modified.tv_nsec == b.modified.tv_nsec
        }
    }
}
