import CStrataLMDB
import Foundation
import StrataCore
import Synchronization

/// A store in an LMDB environment: a directory holding `data.mdb` and `lock.mdb`.
///
/// Each entity is a named database of records keyed by big-endian primary key; model indexes,
/// unique constraints and to-one relationships have secondary databases, so unique checks and
/// inverse lookups never scan (the layout is in docs/LMDBStore.md). Reads run in read-only
/// snapshot transactions (`MDB_NOTLS`), from any thread, and never wait for a save; each save
/// is one write transaction, begun and committed inside ``save(_:)``. The map starts at the
/// `mapSize` option and grows by itself when a save needs room.
///
/// Open one through ``LMDBBackend`` (scheme `lmdb`). Stores of one process that open the same
/// directory share one environment; other processes may open it at the same time.
///
/// Thread safety: all mutable state lives in the shared environment, which guards it with locks
/// (see `LMDBEnvironment`), so the class is `Sendable`.
public final class LMDBStore: PersistentStore, @unchecked Sendable {
    /// Where the store lives (`lmdb:/path/to/directory`).
    public let url: StoreURL
    /// The model the store was opened with.
    public let model: Model
    /// The store's identifier, as in its metadata and its object IDs.
    public let identifier: String
    /// Whether saves are refused (the store was opened with ``StoreOptions/isReadOnly``).
    public let isReadOnly: Bool

    let environment: LMDBEnvironment
    let layouts: [String: EntityLayout]
    /// The layouts in model order (a linear search beats hashing the name for a few entities).
    let layoutList: [EntityLayout]
    let metadataDBI: MDB_dbi
    let sequenceDBI: MDB_dbi
    /// The history database (`_hist`), or `nil` in a store made before history and opened
    /// read-only (its history is then empty).
    let historyDBI: MDB_dbi?
    /// How the store keeps its history (the `history` options).
    let historyOptions: HistoryOptions
    /// Builds each save's history changes.
    let historyRecorder: HistoryChangeRecorder
    private let closed = Atomic<Bool>(false)
    /// Records read by saves (see ``recordReadsInSaves``).
    let recordReads = Atomic<Int>(0)
    /// The store-wide lock, held shared while the store is open (see `StoreAccessLock`).
    private let accessLock: StoreAccessLock?
    /// The log of reads and writes (`strata.lmdb`, `debug`), decided at open.
    let operationLog: StoreOperationLog

    private init(
        url: StoreURL, model: Model, identifier: String, readOnly: Bool, environment: LMDBEnvironment,
        databases: [String: MDB_dbi], recordOrders: [String: RecordOrder], uniqueOrder: UniqueConstraintOrder,
        accessLock: StoreAccessLock?, historyDBI: MDB_dbi?, historyOptions: HistoryOptions
    ) {
        self.accessLock = accessLock
        self.historyDBI = historyDBI
        self.historyOptions = historyOptions
        historyRecorder = HistoryChangeRecorder(model: model)
        self.url = url
        self.model = model
        self.identifier = identifier
        self.isReadOnly = readOnly
        self.environment = environment
        operationLog = StoreOperationLog(component: "lmdb", path: environment.path)
        metadataDBI = databases[LMDBLayout.metadataDatabase]!
        sequenceDBI = databases[LMDBLayout.sequenceDatabase]!
        var layouts: [String: EntityLayout] = [:]
        for entity in model.entities {
            layouts[entity.name] = EntityLayout(
                entity: entity, databases: databases, storeIdentifier: identifier,
                recordOrder: recordOrders[entity.name], uniqueOrder: uniqueOrder)
        }
        self.layouts = layouts
        layoutList = model.entities.map { layouts[$0.name]! }
    }

    deinit {
        if !closed.exchange(true, ordering: .acquiringAndReleasing) { environment.release() }
    }

    /// How many records this store's saves have read so far: one per updated or deleted object
    /// (its version check, whose read also gives its old index entries) and one per candidate
    /// of a unique check. For tests that pin what a save reads.
    package var recordReadsInSaves: Int { recordReads.load(ordering: .relaxed) }

    /// What each save's commit flushes to the disk, as the open environment's flags say: the
    /// data pages, and the meta page too (`durability=full`). For tests that pin the options.
    package var commitFlushes: (dataPages: Bool, metaPage: Bool) { environment.commitFlushes }

    /// The directory of the store.
    public var path: String { environment.path }

    /// The current size of the memory map in bytes (it grows as the store does).
    public var mapSize: Int { environment.mapSize }

    // MARK: Opening

    /// Opens (or creates) the store at `url`; see ``LMDBBackend/open(_:model:options:)``.
    ///
    /// Where there is no store yet, it is created whole before it is opened
    /// (``LMDBStoreCreation``); a store that another process created meanwhile is opened.
    static func open(_ url: StoreURL, model: Model, options storeOptions: StoreOptions) throws -> LMDBStore {
        let start = ContinuousClock.now
        let store = try openUnlogged(url, model: model, options: storeOptions)
        StrataLog.storeOpened(
            url, backend: LMDBBackend.schemeName, model: model, readOnly: store.isReadOnly, since: start)
        return store
    }

    private static func openUnlogged(_ url: StoreURL, model: Model, options storeOptions: StoreOptions) throws
        -> LMDBStore
    {
        try LMDBLayout.checkLimits(of: model)
        let options = try LMDBOptions(storeOptions, url: url)
        let historyOptions = try HistoryOptions(storeOptions.addingQueryOptions(of: url))
        let path = try LMDBDirectory.path(of: url)
        if !options.isReadOnly { LMDBStoreCreation.removeAbandoned(at: path) }
        var state = try LMDBDirectory.state(path)
        try LMDBDirectory.check(state, at: path, options: options)
        let accessLock = try StoreAccessLock.acquire(.shared, forStoreAt: path, url: url, readOnly: options.isReadOnly)
        switch state {
        case .missing, .emptyDirectory:
            try LMDBStoreCreation.create(
                at: path, state: state, model: model, options: options, identifier: storeOptions.identifierForNewStore)
            state = try LMDBDirectory.state(path)
            try LMDBDirectory.check(state, at: path, options: options)
            guard case .environment = state else {
                throw StrataError(.storeNotFound, "the LMDB store created at \(path) is gone", location: ["path": path])
            }
        default:
            break
        }
        let environment = try LMDBEnvironment.acquire(path: path, options: options)
        do {
            let interrupted = try environment.creationWasInterrupted()
            let existing = try !interrupted && environment.hasDatabase(LMDBLayout.metadataDatabase)
            if !existing {
                guard try interrupted || environment.mainDatabaseIsEmpty() else {
                    throw StrataError(
                        .storeCorrupt,
                        "\(path) is an LMDB environment but not a Strata store: it has no \(LMDBLayout.metadataDatabase) database",
                        location: ["path": path])
                }
                guard options.createsIfMissing, !options.isReadOnly else {
                    throw StrataError(
                        .storeNotFound,
                        "there is no Strata store in the "
                            + (interrupted
                                ? "LMDB environment \(path) (its creation was interrupted)"
                                : "empty LMDB environment \(path)"),
                        location: ["path": path])
                }
            }
            let metadata = try readOrCreateMetadata(
                environment: environment, model: model, create: !existing,
                identifier: storeOptions.identifierForNewStore)
            try metadata.checkCompatible(with: model, at: url)
            let uniqueOrder = try UniqueConstraintOrder.resolve(for: model, exists: environment.hasDatabase)
            let databases = try environment.openDatabases(
                LMDBLayout.databases(for: model, uniqueOrder: uniqueOrder), create: false)
            let recordOrders = try environment.read { txn in
                try RecordOrder.read(txn, databases[LMDBLayout.metadataDatabase]!, model: model, path: path)
            }
            return LMDBStore(
                url: url, model: model, identifier: metadata.storeIdentifier, readOnly: options.isReadOnly,
                environment: environment, databases: databases, recordOrders: recordOrders,
                uniqueOrder: uniqueOrder, accessLock: accessLock,
                historyDBI: try openHistoryDatabase(environment, readOnly: options.isReadOnly),
                historyOptions: historyOptions)
        } catch {
            environment.release()
            if let failure = error as? LMDBFailure, failure.code == MDB_NOTFOUND {
                throw StrataError(
                    .storeCorrupt,
                    "the LMDB store at \(path) lacks a database its model needs (\(failure.call)); it is damaged",
                    location: ["path": path], underlying: failure.text)
            }
            throw environment.translate(error, doing: "opening the store")
        }
    }

    /// Reads the metadata of an existing store, or creates the store's databases and metadata in
    /// an environment that has none (one made by other software, or a store whose creation an
    /// earlier version of Strata left unfinished), in one transaction.
    private static func readOrCreateMetadata(
        environment: LMDBEnvironment, model: Model, create: Bool, identifier: String?
    ) throws -> StoreMetadata {
        if create {
            return try environment.write { txn in
                try writeNewStore(txn, model: model, identifier: identifier, path: environment.path)
            }
        }
        let meta = try environment.openDatabases([(LMDBLayout.metadataDatabase, 0)], create: false)[
            LMDBLayout.metadataDatabase]!
        let metadata = try environment.read { txn in try readMetadata(txn, meta, path: environment.path) }
        guard let metadata else {
            throw StrataError(
                .storeCorrupt, "the LMDB store at \(environment.path) has no store identifier in its metadata",
                location: ["path": environment.path])
        }
        return metadata
    }

    /// Creates every database of `model` and writes a new store's metadata in `txn`, or returns
    /// the metadata already there.
    static func writeNewStore(_ txn: LMDBTransaction, model: Model, identifier: String?, path: String) throws
        -> StoreMetadata
    {
        var meta: MDB_dbi = 0
        for (name, flags) in LMDBLayout.databases(for: model) {
            var dbi: MDB_dbi = 0
            try check(mdb_dbi_open(txn.handle, name, flags | UInt32(MDB_CREATE), &dbi), "mdb_dbi_open(\(name))")
            if name == LMDBLayout.metadataDatabase { meta = dbi }
        }
        var history: MDB_dbi = 0
        try check(
            mdb_dbi_open(txn.handle, LMDBLayout.historyDatabase, UInt32(MDB_CREATE), &history),
            "mdb_dbi_open(\(LMDBLayout.historyDatabase))")
        if let existing = try readMetadata(txn, meta, path: path) { return existing }
        let metadata = StoreMetadata.new(storeType: LMDBBackend.schemeName, model: model, identifier: identifier)
        let entries: [(String, String)] = [
            ("layoutVersion", String(LMDBLayout.version)),
            ("storeIdentifier", metadata.storeIdentifier),
            ("storeType", metadata.storeType),
            ("modelVersionHash", metadata.modelVersionHash),
            ("modelVersionIdentifier", metadata.modelVersionIdentifier),
        ]
        for (key, value) in entries { try putText(txn, meta, key, value) }
        try putModel(txn, meta, model)
        for entity in model.entities { try RecordOrder.write(txn, meta, entity: entity) }
        return metadata
    }

    /// The metadata in `_meta`, or `nil` when it holds no store identifier yet.
    static func readMetadata(_ txn: LMDBTransaction, _ dbi: MDB_dbi, path: String) throws -> StoreMetadata? {
        var values: [String: String] = [:]
        let cursor = try txn.cursor(dbi)
        defer { cursor.close() }
        var entry = try cursor.move(MDB_FIRST)
        while let (key, value) = entry {
            let name = String(decoding: key, as: UTF8.self)
            // The models are read only when asked for (``modelJSON(_:_:versionHash:)``).
            if !name.hasPrefix(LMDBLayout.modelPrefix) { values[name] = String(decoding: value, as: UTF8.self) }
            entry = try cursor.move(MDB_NEXT)
        }
        guard let identifier = values["storeIdentifier"] else { return nil }
        if let layout = values["layoutVersion"], layout != String(LMDBLayout.version) {
            throw StrataError(
                .storeCorrupt,
                "the LMDB store at \(path) has layout version \(layout); this build reads version \(LMDBLayout.version)",
                location: ["path": path])
        }
        guard let hash = values["modelVersionHash"] else {
            throw StrataError(
                .storeCorrupt, "the LMDB store at \(path) records no model version hash", location: ["path": path])
        }
        var userInfo: [String: String] = [:]
        for (key, value) in values where key.hasPrefix(LMDBLayout.userInfoPrefix) {
            userInfo[String(key.dropFirst(LMDBLayout.userInfoPrefix.count))] = value
        }
        return StoreMetadata(
            storeIdentifier: identifier, storeType: values["storeType"] ?? LMDBBackend.schemeName,
            modelVersionHash: hash, modelVersionIdentifier: values["modelVersionIdentifier"] ?? "", userInfo: userInfo)
    }

    /// Records `model`'s JSON in `_meta` under its hash (the store keeps the ones it had before).
    static func putModel(_ txn: LMDBTransaction, _ meta: MDB_dbi, _ model: Model) throws {
        try putText(
            txn, meta, LMDBLayout.modelPrefix + model.versionHash, String(decoding: model.jsonData(), as: UTF8.self))
    }

    /// The JSON of the model version with `versionHash` recorded in `_meta`, or `nil`.
    static func modelJSON(_ txn: LMDBTransaction, _ meta: MDB_dbi, versionHash: String) throws -> Data? {
        try Array((LMDBLayout.modelPrefix + versionHash).utf8).withUnsafeBytes { key in
            try txn.get(meta, key: key).map { Data($0) }
        }
    }

    static func putText(_ txn: LMDBTransaction, _ dbi: MDB_dbi, _ key: String, _ value: String) throws {
        try Array(key.utf8).withUnsafeBytes { k in
            try Array(value.utf8).withUnsafeBytes { v in _ = try txn.put(dbi, key: k, value: v) }
        }
    }

    // MARK: The protocol

    /// Throws ``StrataError/Code/storeClosed`` once the store is closed.
    @inline(__always)
    func ensureOpen() throws {
        if closed.load(ordering: .acquiring) {
            throw StrataError(
                .storeClosed, "the LMDB store at \(environment.path) is closed", location: ["path": environment.path])
        }
    }

    /// The layout of `entityName`, or ``StrataError/Code/unknownEntity``.
    @inline(__always)
    func layout(_ entityName: String) throws -> EntityLayout {
        if layoutList.count <= 8 {
            for layout in layoutList where layout.entity.name == entityName { return layout }
        } else if let layout = layouts[entityName] {
            return layout
        }
        _ = try model.requireEntity(entityName)
        throw StrataError(.unknownEntity, "the model has no entity '\(entityName)'", location: ["entity": entityName])
    }

    /// The store's current metadata, read from the environment (another process may have
    /// changed its user info).
    public func metadata() throws -> StoreMetadata {
        try ensureOpen()
        do {
            let metadata = try environment.read { txn in
                try LMDBStore.readMetadata(txn, metadataDBI, path: environment.path)
            }
            guard let metadata else {
                throw StrataError(
                    .storeCorrupt, "the LMDB store at \(environment.path) has lost its metadata",
                    location: ["path": environment.path])
            }
            return metadata
        } catch {
            throw environment.translate(error, doing: "reading the metadata")
        }
    }

    /// Hands out `count` new primary keys for `entityName` from the entity's sequence, in a
    /// write transaction of their own: keys are never handed out twice, across processes and
    /// reopening, and the keys of deleted objects are never reused.
    public func obtainPermanentIDs(for entityName: String, count: Int) throws -> [ObjectID] {
        try ensureOpen()
        let layout = try layout(entityName)
        guard count >= 0 else {
            throw StrataError(.invalidRequest, "cannot obtain \(count) IDs", location: ["entity": entityName])
        }
        guard count > 0 else { return [] }
        let first: Int64
        do {
            first = try environment.write { txn in
                let last = try sequence(txn, entityName)
                let (next, overflow) = last.addingReportingOverflow(Int64(count))
                guard !overflow else {
                    throw StrataError(
                        .internalInconsistency, "the primary keys of \(entityName) are exhausted",
                        location: ["entity": entityName])
                }
                try setSequence(txn, entityName, next)
                return last + 1
            }
        } catch {
            throw environment.translate(error, doing: "obtaining permanent IDs")
        }
        var ids: [ObjectID] = []
        ids.reserveCapacity(count)
        for offset in 0..<Int64(count) { ids.append(layout.objectID(first + offset)) }
        return ids
    }

    /// The last primary key handed out for `entityName` (0 when none).
    func sequence(_ txn: LMDBTransaction, _ entityName: String) throws -> Int64 {
        let value = try Array(entityName.utf8).withUnsafeBytes { try txn.get(sequenceDBI, key: $0) }
        guard let value else { return 0 }
        guard value.count == 8 else {
            throw RecordCorruption(reason: "the key sequence of \(entityName) is \(value.count) bytes long, not 8")
        }
        return Int64(bitPattern: UInt64(bigEndian: value.loadUnaligned(as: UInt64.self)))
    }

    func setSequence(_ txn: LMDBTransaction, _ entityName: String, _ value: Int64) throws {
        var bytes = UInt64(bitPattern: value).bigEndian
        try Array(entityName.utf8).withUnsafeBytes { key in
            try withUnsafeBytes(of: &bytes) { _ = try txn.put(sequenceDBI, key: key, value: $0) }
        }
    }

    /// Closes the store. The environment closes when the last store of the process using it
    /// closes, after transactions in flight end. Closing twice is harmless.
    public func close() throws {
        if !closed.exchange(true, ordering: .acquiringAndReleasing) {
            environment.release()
            accessLock?.release()
        }
    }
}
