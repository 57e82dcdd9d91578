import CStrataLMDB
import Foundation
import StrataCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One open LMDB environment (a directory with `data.mdb` and `lock.mdb`), shared by every
/// ``LMDBStore`` of the process that opens the same directory.
///
/// LMDB forbids opening one environment twice in a process (closing either handle would drop the
/// other's POSIX locks), so environments are reference-counted in a process-wide table keyed by
/// the directory's real path.
///
/// Concurrency: transactions are created with `MDB_NOTLS`, so a read transaction may be used
/// from any thread. Read transactions are pooled (reset, then renewed) so a fetch costs no
/// allocation and no reader-slot search. Saves are serialized in the process by ``writeLock``
/// (LMDB serializes them across processes); each write transaction is begun and committed inside
/// one synchronous call, on one thread. The ``gate`` is held shared by every transaction and
/// exclusively only to remap (grow the map, adopt another process's growth) or to close.
final class LMDBEnvironment: @unchecked Sendable {
    /// The directory.
    let path: String
    /// Whether the environment was opened with `MDB_RDONLY`.
    let isReadOnly: Bool
    /// The options it was opened with (the first opener's, when shared; a later opener may
    /// strengthen what commits flush: see ``strengthenDurability(to:)``).
    let options: LMDBOptions

    private let env: OpaquePointer
    private let gate = ReadWriteGate()
    private let writeLock = NSLock()
    private let poolLock = NSLock()
    private var readPool: [OpaquePointer] = []
    private var databases: [String: MDB_dbi] = [:]
    private var isClosed = false

    /// The most named databases an environment may hold.
    static let maxDatabases: UInt32 = 4096
    /// The map never grows beyond this (1 TiB).
    static let maximumMapSize = 1 << 40

    private init(path: String, env: OpaquePointer, options: LMDBOptions) {
        self.path = path
        self.env = env
        self.options = options
        self.isReadOnly = options.isReadOnly
    }

    // MARK: Process-wide sharing

    private struct Entry {
        var environment: LMDBEnvironment
        var users: Int
    }

    /// The open environments by real path. A POSIX mutex (`NSLock`), which ThreadSanitizer
    /// understands, rather than `Mutex`, whose futex it does not see on Linux.
    private final class Table: @unchecked Sendable {
        private let lock = NSLock()
        private var entries: [String: Entry] = [:]

        func withLock<R>(_ body: (inout [String: Entry]) throws -> R) rethrows -> R {
            lock.lock()
            defer { lock.unlock() }
            return try body(&entries)
        }
    }

    private static let table = Table()

    /// Opens (or shares) the environment in the existing directory `path`.
    static func acquire(path: String, options: LMDBOptions) throws -> LMDBEnvironment {
        let key = URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL.path
        return try table.withLock { table -> LMDBEnvironment in
            if var entry = table[key] {
                if entry.environment.isReadOnly && !options.isReadOnly {
                    throw StrataError(
                        .storeBusy,
                        "LMDB store at \(path) is already open read-only in this process; close it before opening it for writing",
                        location: ["path": path])
                }
                // A second opener asking for more durability than the first gets it, for every
                // user of the environment: never less than a store's options promise.
                try entry.environment.strengthenDurability(to: options.sync)
                entry.users += 1
                table[key] = entry
                return entry.environment
            }
            let environment = try open(path: path, options: options)
            table[key] = Entry(environment: environment, users: 1)
            return environment
        }
    }

    /// Gives back one use; the last one closes the environment.
    func release() {
        let key = URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL.path
        let last = LMDBEnvironment.table.withLock { table -> Bool in
            guard var entry = table[key], entry.environment === self else { return true }
            entry.users -= 1
            if entry.users == 0 {
                table[key] = nil
                return true
            }
            table[key] = entry
            return false
        }
        if last { shutDown() }
    }

    /// Whether the process has an environment open at `path`.
    static func isOpen(path: String) -> Bool {
        let key = URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL.path
        return table.withLock { $0[key] != nil }
    }

    private static func open(path: String, options: LMDBOptions) throws -> LMDBEnvironment {
        // Before liblmdb reads anything: a meta page it would trust blindly (a page size of 0,
        // a file shorter than the pages it counts) is refused here.
        _ = try LMDBPageCheck.checkMetaPages(directory: path)
        // Before liblmdb maps the lock file: its space is reserved, so a full disk is an error
        // here rather than SIGBUS inside liblmdb; a read-only open that may not write it reads
        // without it (see LMDBLockFile).
        let lockMode = try LMDBLockFile.prepare(directory: path, readOnly: options.isReadOnly)
        var handle: OpaquePointer?
        do {
            try check(mdb_env_create(&handle), "mdb_env_create")
        } catch let failure as LMDBFailure {
            throw StrataError.lmdb(failure, path: path, doing: "creating the environment handle")
        }
        guard let env = handle else {
            throw StrataError(
                .internalInconsistency, "mdb_env_create returned no handle for \(path)", location: ["path": path])
        }
        do {
            try check(mdb_env_set_maxdbs(env, maxDatabases), "mdb_env_set_maxdbs")
            try check(mdb_env_set_maxreaders(env, 1022), "mdb_env_set_maxreaders")
            try check(mdb_env_set_mapsize(env, options.mapSize), "mdb_env_set_mapsize")
            var flags = UInt32(MDB_NOTLS) | options.sync.flags
            if options.isReadOnly { flags |= UInt32(MDB_RDONLY) }
            if lockMode == .lockless { flags |= UInt32(MDB_NOLOCK) }
            try check(mdb_env_open(env, path, flags, 0o600), "mdb_env_open")
            var dead: Int32 = 0
            try check(mdb_reader_check(env, &dead), "mdb_reader_check")
            if options.checksPages { try checkPages(env, path: path) }
            // Opening the main database sets its key comparison, which lookups in it need.
            var txn: OpaquePointer?
            try check(mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &txn), "mdb_txn_begin")
            var main: MDB_dbi = 0
            let opened = mdb_dbi_open(txn, nil, 0, &main)
            if opened != MDB_SUCCESS { mdb_txn_abort(txn) }
            try check(opened, "mdb_dbi_open")
            try check(mdb_txn_commit(txn), "mdb_txn_commit")
        } catch let failure as LMDBFailure {
            mdb_env_close(env)
            throw StrataError.lmdb(failure, path: path, doing: "opening the environment")
        } catch {
            mdb_env_close(env)
            throw error
        }
        return LMDBEnvironment(path: path, env: env, options: options)
    }

    /// Checks every tree of the snapshot a new read transaction sees, before any B-tree page is
    /// read (``LMDBPageCheck``); the transaction's reader slot keeps the pages from being reused
    /// by other processes' writers meanwhile.
    private static func checkPages(_ env: OpaquePointer, path: String) throws {
        var txn: OpaquePointer?
        var code = mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &txn)
        if code == MDB_MAP_RESIZED {
            try check(mdb_env_set_mapsize(env, 0), "mdb_env_set_mapsize")
            code = mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &txn)
        }
        try check(code, "mdb_txn_begin")
        defer { mdb_txn_abort(txn) }
        var pages = MDB_stat()
        var descriptor: Int32 = -1
        try check(mdb_env_stat(env, &pages), "mdb_env_stat")
        try check(mdb_env_get_fd(env, &descriptor), "mdb_env_get_fd")
        try LMDBPageCheck.checkSnapshot(
            directory: path, descriptor: descriptor, pageSize: Int(pages.ms_psize), transaction: UInt64(mdb_txn_id(txn))
        )
    }

    private func shutDown() {
        gate.lockExclusive()
        defer { gate.unlock() }
        guard !isClosed else { return }
        isClosed = true
        poolLock.lock()
        for txn in readPool { mdb_txn_abort(txn) }
        readPool.removeAll()
        poolLock.unlock()
        // With `durability=normal` the last commit's meta page may still be unflushed: closing
        // flushes it, so that every save of a closed store survives a crash of the machine. A
        // failure leaves the store as consistent as before (the previous meta page is whole).
        let flushes = commitFlushes
        if !isReadOnly && flushes.dataPages && !flushes.metaPage { mdb_env_sync(env, 1) }
        mdb_env_close(env)
    }

    /// Makes commits flush at least what `sync` asks for (`full`: data and meta pages;
    /// `nometasync`: the data pages), clearing `MDB_NOSYNC`/`MDB_NOMETASYNC` as needed; never
    /// weakens them. Under ``writeLock``, so that no commit of this process runs meanwhile.
    func strengthenDurability(to sync: LMDBOptions.Sync) throws {
        guard !isReadOnly else { return }
        writeLock.lock()
        defer { writeLock.unlock() }
        let flushes = commitFlushes
        var cleared: UInt32 = 0
        if sync != .nosync && !flushes.dataPages { cleared |= UInt32(MDB_NOSYNC) }
        if sync == .full && !flushes.metaPage { cleared |= UInt32(MDB_NOMETASYNC) }
        guard cleared != 0 else { return }
        do {
            try check(mdb_env_set_flags(env, cleared, 0), "mdb_env_set_flags")
        } catch let failure as LMDBFailure {
            throw StrataError.lmdb(failure, path: path, doing: "making commits flush as its options ask")
        }
    }

    /// What a commit flushes, read back from the open environment's flags
    /// (`mdb_env_get_flags`): whether it flushes the data pages, and whether also the meta page.
    var commitFlushes: (dataPages: Bool, metaPage: Bool) {
        var flags: UInt32 = 0
        mdb_env_get_flags(env, &flags)
        let data = flags & UInt32(MDB_NOSYNC) == 0
        return (data, data && flags & UInt32(MDB_NOMETASYNC) == 0)
    }

    deinit {
        if !isClosed {
            for txn in readPool { mdb_txn_abort(txn) }
            mdb_env_close(env)
        }
    }

    // MARK: Errors

    /// Turns any error into a ``StrataError`` naming the environment's path.
    func translate(_ error: any Error, doing what: String) -> StrataError {
        switch error {
        case let error as StrataError: return error
        case let failure as LMDBFailure: return .lmdb(failure, path: path, doing: what)
        case let corruption as RecordCorruption:
            return StrataError(.storeCorrupt, "LMDB store at \(path): \(corruption.reason)", location: ["path": path])
        default:
            return StrataError(
                .io, "LMDB store at \(path): \(what) failed: \(error)", location: ["path": path], underlying: "\(error)"
            )
        }
    }

    // MARK: Named databases

    /// Opens (creating when `create`) the named databases `names` with their flags, in one
    /// transaction of their own, and returns their handles by name.
    func openDatabases(_ names: [(name: String, flags: UInt32)], create: Bool) throws -> [String: MDB_dbi] {
        writeLock.lock()
        defer { writeLock.unlock() }
        gate.lockShared()
        defer { gate.unlock() }
        try ensureOpen()
        var txn: OpaquePointer?
        try check(mdb_txn_begin(env, nil, create ? 0 : UInt32(MDB_RDONLY), &txn), "mdb_txn_begin")
        var opened: [String: MDB_dbi] = [:]
        do {
            for (name, flags) in names {
                var dbi: MDB_dbi = 0
                try check(
                    mdb_dbi_open(txn, name, flags | (create ? UInt32(MDB_CREATE) : 0), &dbi), "mdb_dbi_open(\(name))")
                opened[name] = dbi
            }
            try check(mdb_txn_commit(txn), "mdb_txn_commit")
        } catch {
            mdb_txn_abort(txn)
            throw error
        }
        for (name, dbi) in opened { databases[name] = dbi }
        return opened
    }

    /// Whether the unnamed main database holds no key at all (a fresh environment).
    func mainDatabaseIsEmpty() throws -> Bool {
        try read { txn in
            var stat = MDB_stat()
            try check(mdb_stat(txn.handle, 1, &stat), "mdb_stat")
            return stat.ms_entries == 0
        }
    }

    /// Whether the unnamed main database names `name` (whether that named database exists).
    func hasDatabase(_ name: String) throws -> Bool {
        try read { txn in
            try Array(name.utf8).withUnsafeBytes { key in try txn.get(LMDBTransaction.mainDatabase, key: key) != nil }
        }
    }

    // MARK: Transactions

    private func ensureOpen() throws {
        if isClosed {
            throw StrataError(.storeClosed, "LMDB store at \(path) is closed", location: ["path": path])
        }
    }

    /// Runs `body` in a read-only snapshot. Safe from any thread; never waits for a save.
    func read<Result>(_ body: (LMDBTransaction) throws -> Result) throws -> Result {
        while true {
            gate.lockShared()
            try ensureOpenOrUnlock()
            poolLock.lock()
            var txn = readPool.popLast()
            poolLock.unlock()
            var code = MDB_NOTFOUND
            if let pooled = txn {
                code = mdb_txn_renew(pooled)
                if code != MDB_SUCCESS {
                    mdb_txn_abort(pooled)
                    txn = nil
                }
            }
            if txn == nil && code != MDB_MAP_RESIZED {
                code = mdb_txn_begin(env, nil, UInt32(MDB_RDONLY), &txn)
            }
            if code == MDB_MAP_RESIZED {
                if let txn { mdb_txn_abort(txn) }
                gate.unlock()
                try adoptMapSize()
                continue
            }
            guard code == MDB_SUCCESS, let handle = txn else {
                gate.unlock()
                throw StrataError.lmdb(
                    LMDBFailure(code: code, call: "mdb_txn_begin"), path: path, doing: "beginning a read transaction")
            }
            defer {
                mdb_txn_reset(handle)
                poolLock.lock()
                readPool.append(handle)
                poolLock.unlock()
                gate.unlock()
            }
            return try body(LMDBTransaction(handle: handle))
        }
    }

    private func ensureOpenOrUnlock() throws {
        if isClosed {
            gate.unlock()
            throw StrataError(.storeClosed, "LMDB store at \(path) is closed", location: ["path": path])
        }
    }

    /// Runs `body` in one write transaction and commits it, on the calling thread. When the map
    /// is full (during `body` or at commit), the transaction is aborted, the map grows and
    /// `body` runs again from the start in a new transaction: a save is never half applied and
    /// never lost. Any other error aborts the transaction and is rethrown.
    func write<Result>(_ body: (LMDBTransaction) throws -> Result) throws -> Result {
        if isReadOnly {
            throw StrataError(.readOnly, "LMDB store at \(path) is open read-only", location: ["path": path])
        }
        writeLock.lock()
        defer { writeLock.unlock() }
        while true {
            gate.lockShared()
            try ensureOpenOrUnlock()
            var txn: OpaquePointer?
            let code = mdb_txn_begin(env, nil, 0, &txn)
            if code == MDB_MAP_RESIZED {
                gate.unlock()
                try adoptMapSize()
                continue
            }
            guard code == MDB_SUCCESS, let handle = txn else {
                gate.unlock()
                throw StrataError.lmdb(
                    LMDBFailure(code: code, call: "mdb_txn_begin"), path: path, doing: "beginning a write transaction")
            }
            let result: Result
            do {
                result = try body(LMDBTransaction(handle: handle))
            } catch let failure as LMDBFailure where failure.isMapFull {
                mdb_txn_abort(handle)
                gate.unlock()
                try grow()
                continue
            } catch {
                mdb_txn_abort(handle)
                gate.unlock()
                throw error
            }
            let commit = mdb_txn_commit(handle)
            gate.unlock()
            if commit == MDB_MAP_FULL {
                try grow()
                continue
            }
            if commit != MDB_SUCCESS {
                throw StrataError.lmdb(
                    LMDBFailure(code: commit, call: "mdb_txn_commit"), path: path, doing: "committing a save")
            }
            return result
        }
    }

    // MARK: Map size

    /// The current map size in bytes.
    var mapSize: Int {
        var info = MDB_envinfo()
        mdb_env_info(env, &info)
        return info.me_mapsize
    }

    /// Doubles the map (called with no transaction of this process active).
    private func grow() throws {
        gate.lockExclusive()
        defer { gate.unlock() }
        try ensureOpen()
        var info = MDB_envinfo()
        mdb_env_info(env, &info)
        let current = info.me_mapsize
        let limit = min(options.maximumMapSize, LMDBEnvironment.maximumMapSize)
        guard current < limit else {
            throw StrataError.lmdb(
                LMDBFailure(code: MDB_MAP_FULL, call: "mdb_env_set_mapsize"), path: path, doing: "growing the map")
        }
        let next = min(current * 2, limit)
        do {
            try check(mdb_env_set_mapsize(env, next), "mdb_env_set_mapsize")
        } catch let failure as LMDBFailure {
            throw StrataError.lmdb(failure, path: path, doing: "growing the map to \(next) bytes")
        }
    }

    /// Adopts the map size another process grew the environment to.
    private func adoptMapSize() throws {
        gate.lockExclusive()
        defer { gate.unlock() }
        try ensureOpen()
        do {
            try check(mdb_env_set_mapsize(env, 0), "mdb_env_set_mapsize")
        } catch let failure as LMDBFailure {
            throw StrataError.lmdb(failure, path: path, doing: "adopting the map size grown by another process")
        }
    }
}
