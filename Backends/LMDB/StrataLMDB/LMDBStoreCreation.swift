import CStrataLMDB
import Foundation
import StrataCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Creates a store so that it appears whole or not at all.
///
/// The environment is built in a private directory: its lock file reserved (``LMDBLockFile``),
/// its named databases and its metadata written in one transaction, flushed, and closed. Only
/// then does it take the store's place, in one step:
///
/// - where nothing is at the path, the private directory `.NAME.creating-PID-RANDOM` beside it
///   is renamed to the path (`rename(2)` of a directory onto a missing name is atomic);
/// - in an existing empty directory (made by the user, or a mount point), the private directory
///   is `.creating-PID-RANDOM` inside it; the lock file and then `data.mdb` are hard-linked into
///   place (`link(2)` fails rather than replace a file another process put there first).
///
/// A process killed at any moment, or a full disk, leaves no store (and at most a private
/// directory, which ``removeAbandoned(at:)`` deletes at a later open once its process is gone)
/// or the whole new store. Two processes creating one store at once both end with the same
/// store: the one whose rename or link comes second discards its own and opens the other's.
///
/// The private environment is opened with `MDB_NOLOCK` (no process but its creator knows it),
/// so nothing is mapped for writing while it is built.
enum LMDBStoreCreation {
    /// The name prefix of a private directory inside an existing empty store directory.
    static let insidePrefix = ".creating-"

    /// The name prefix of a private directory beside the store `name`.
    static func besidePrefix(_ name: String) -> String { ".\(name).creating-" }

    /// Creates the store of `model` at `path`, where `state` found nothing or an empty
    /// directory. Returns when a whole store is at `path`: this one, or one another process
    /// created meanwhile.
    static func create(
        at path: String, state: LMDBDirectory.State, model: Model, options: LMDBOptions, identifier: String?
    ) throws {
        let unique = "\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        switch state {
        case .missing:
            let location = URL(fileURLWithPath: path)
            let parent = location.deletingLastPathComponent().path
            let build = parent + "/" + besidePrefix(location.lastPathComponent) + unique
            try self.build(in: build, store: path, model: model, options: options, identifier: identifier)
            if rename(build, path) != 0 {
                let error = errno
                remove(build)
                // Another process created the store (or something else appeared) meanwhile:
                // the open goes on with what is there now.
                if error == EEXIST || error == ENOTEMPTY { return }
                throw LMDBDirectory.failure(path, errno: error, doing: "moving the new store into place at")
            }
            try LMDBDirectory.sync(parent)
        case .emptyDirectory:
            let build = path + "/" + insidePrefix + unique
            try self.build(in: build, store: path, model: model, options: options, identifier: identifier)
            defer { remove(build) }
            // The lock file first: data.mdb is what makes the directory a store.
            _ = try place(LMDBDirectory.lockFile(build), at: LMDBDirectory.lockFile(path))
            guard try place(LMDBDirectory.dataFile(build), at: LMDBDirectory.dataFile(path)) else { return }
            try LMDBDirectory.sync(path)
        default:
            throw StrataError(
                .internalInconsistency, "a store is created only where there is none (\(path))",
                location: ["path": path])
        }
    }

    /// Gives the file `source` the name `target` unless that name exists. Returns whether it
    /// did. A hard link where the file system has them; a rename otherwise (which could replace
    /// a file another process placed in the same instant).
    private static func place(_ source: String, at target: String) throws -> Bool {
        if link(source, target) == 0 { return true }
        let error = errno
        if error == EEXIST { return false }
        guard error == EPERM || error == EOPNOTSUPP || error == EMLINK else {
            throw LMDBDirectory.failure(target, errno: error, doing: "placing the new store's file")
        }
        if access(target, F_OK) == 0 { return false }
        guard rename(source, target) == 0 else {
            throw LMDBDirectory.failure(target, errno: errno, doing: "placing the new store's file")
        }
        return true
    }

    /// Builds a whole store in the new directory `directory` (mode `0700`; files `0600`).
    /// On failure, removes everything it made and throws an error naming `store`.
    private static func build(
        in directory: String, store: String, model: Model, options: LMDBOptions, identifier: String?
    ) throws {
        guard mkdir(directory, 0o700) == 0 else {
            throw LMDBDirectory.failure(store, errno: errno, doing: "creating the store")
        }
        do {
            try LMDBLockFile.create(LMDBDirectory.lockFile(directory))
            try writeEnvironment(in: directory, model: model, options: options, identifier: identifier)
            try LMDBDirectory.sync(directory)
        } catch let error as StrataError {
            remove(directory)
            let cause = error.underlying ?? error.message
            throw StrataError(
                error.code, "LMDB store at \(store): creating the store failed: \(cause); nothing was left behind",
                location: ["path": store], underlying: error.underlying)
        } catch {
            remove(directory)
            throw error
        }
    }

    /// Writes the new environment's databases and metadata in one transaction and flushes them.
    private static func writeEnvironment(in directory: String, model: Model, options: LMDBOptions, identifier: String?)
        throws
    {
        var handle: OpaquePointer?
        do {
            try check(mdb_env_create(&handle), "mdb_env_create")
            guard let env = handle else { throw LMDBFailure(code: EINVAL, call: "mdb_env_create") }
            defer { mdb_env_close(env) }
            try check(mdb_env_set_maxdbs(env, LMDBEnvironment.maxDatabases), "mdb_env_set_maxdbs")
            try check(mdb_env_set_mapsize(env, options.mapSize), "mdb_env_set_mapsize")
            try check(mdb_env_open(env, directory, UInt32(MDB_NOLOCK | MDB_NOTLS | MDB_NOSYNC), 0o600), "mdb_env_open")
            var txn: OpaquePointer?
            try check(mdb_txn_begin(env, nil, 0, &txn), "mdb_txn_begin")
            do {
                _ = try LMDBStore.writeNewStore(
                    LMDBTransaction(handle: txn!), model: model, identifier: identifier, path: directory)
            } catch {
                mdb_txn_abort(txn)
                throw error
            }
            try check(mdb_txn_commit(txn), "mdb_txn_commit")
            try check(mdb_env_sync(env, 1), "mdb_env_sync")
        } catch let failure as LMDBFailure {
            throw StrataError.lmdb(failure, path: directory, doing: "writing the new environment")
        }
    }

    /// Removes a private directory and the files a creation puts in it. Anything else in it is
    /// left alone (and the directory with it).
    private static func remove(_ directory: String) {
        unlink(LMDBDirectory.dataFile(directory))
        unlink(LMDBDirectory.lockFile(directory))
        rmdir(directory)
    }

    /// Removes the private directories that creations killed on this machine left beside `path`
    /// and inside it: those whose process no longer exists. Those of live processes (a creation
    /// in progress, this process's included) are left alone.
    static func removeAbandoned(at path: String) {
        let location = URL(fileURLWithPath: path)
        removeAbandoned(in: location.deletingLastPathComponent().path, prefix: besidePrefix(location.lastPathComponent))
        removeAbandoned(in: path, prefix: insidePrefix)
    }

    private static func removeAbandoned(in directory: String, prefix: String) {
        guard let dir = opendir(directory) else { return }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix(prefix) { names.append(name) }
        }
        closedir(dir)
        for name in names {
            guard let pid = Int32(name.dropFirst(prefix.count).prefix { $0 != "-" }), pid > 0, pid != getpid() else {
                continue
            }
            guard kill(pid, 0) == -1, errno == ESRCH else { continue }
            remove(directory + "/" + name)
        }
    }
}
