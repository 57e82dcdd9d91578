import Foundation
import StrataCore

/// An atomic store in one human-readable XML file: the whole graph is loaded when the store
/// opens and the whole file is rewritten, crash-safely, at each save.
///
/// Open one through ``XMLBackend`` (`xml:/path/app.xml`). The format is documented in
/// `docs/XMLStore.md`: canonical (the same graph always gives the same bytes), one object per
/// line, sorted, so files diff well and can be edited by hand.
///
/// - **Loading** streams the file through libxml2's SAX2 parser with no DTD, no entity and no
///   network; any `DOCTYPE` is refused. Every problem in a file is a
///   ``StrataError/Code/storeCorrupt`` error naming the path and the line.
/// - **Saving** writes the next version of the file with `xmlTextWriter` into a temporary file in
///   the same directory, fsyncs it, renames it over the store and fsyncs the directory. A crash
///   leaves the old file or the new one, whole.
/// - **One writer**: a save holds an advisory `flock` on `NAME.lock` beside the store; a second
///   process saving at the same moment gets ``StrataError/Code/storeBusy`` (or waits up to the
///   `lockTimeout` option, in ms). A store whose file was replaced by another process since it
///   was loaded refuses to save (``StrataError/Code/storeBusy``) instead of losing that
///   process's save: reopen it to see the new state.
/// - **Keys**: ``obtainPermanentIDs(for:count:)`` records the keys it hands out in a synced
///   ledger beside the store (`NAME.keys`, see ``XMLKeyLedger``), so no key is handed out twice,
///   across reopening and across processes.
/// - **Fetches** are answered from memory with StrataCore's own evaluator, so every request is
///   evaluated natively with exactly the reference semantics.
///
/// Thread-safe: fetches read an immutable image of the graph; saves are serialized and swap in
/// the next image only once the file is on disk, so a fetch sees the state before or after a save.
public final class XMLStore: PersistentStore {
    /// Where the store lives (`xml:PATH`).
    public let url: StoreURL
    /// The model the store was opened with.
    public let model: Model
    /// The store identifier recorded in the file.
    public let identifier: String
    /// The real path of the store file: the location of ``url`` with symbolic links, `.` and
    /// `..` resolved when the store was opened. The lock file and the key ledger are named after it.
    public let path: String

    let layout: XMLModelLayout
    /// Each entity's ID scope in this store, and each of its relationships' target scope, by
    /// the layout's entity and relationship positions: a fetch makes its IDs from them without
    /// a lookup per ID.
    let entityScopes: [ObjectID.Scope]
    let destinationScopes: [[ObjectID.Scope]]
    let options: XMLStoreOptions
    let state: Locked<State>
    /// Serializes saves (fetches do not wait for it).
    let saveLock = NSLock()
    /// The durable record of the keys handed out (`NAME.keys`).
    let keyLedger: XMLKeyLedger
    /// Builds each save's history changes.
    let historyRecorder: HistoryChangeRecorder

    /// The mutable part of the store.
    struct State: Sendable {
        /// The graph as last loaded or saved (plus keys handed out since).
        var image: XMLStoreImage
        /// The identity of the file as last loaded or saved.
        var fileIdentity: XMLFileIdentity?
        /// The writer lock, `nil` once closed or when read-only.
        var fileLock: XMLFileLock?
        /// Whether ``close()`` was called.
        var isClosed = false
        /// A test hook run after the temporary file is synced and before it is renamed.
        var beforeRename: (@Sendable () throws -> Void)?
    }

    /// The store-wide lock, held shared while the store is open (see `StoreAccessLock`).
    private let accessLock: StoreAccessLock?
    /// The log of loads and saves (`strata.xml`, `debug`), decided at open.
    let operationLog: StoreOperationLog

    init(
        url: StoreURL, path: String, model: Model, layout: XMLModelLayout, options: XMLStoreOptions,
        image: XMLStoreImage, fileIdentity: XMLFileIdentity?, fileLock: XMLFileLock?, accessLock: StoreAccessLock?
    ) {
        self.accessLock = accessLock
        self.url = url
        self.path = path
        operationLog = StoreOperationLog(component: "xml", path: path)
        self.model = model
        historyRecorder = HistoryChangeRecorder(model: model)
        self.layout = layout
        self.options = options
        let identifier = image.metadata.storeIdentifier
        self.identifier = identifier
        entityScopes = layout.entities.map { ObjectID.Scope(entityName: $0.name, storeIdentifier: identifier) }
        destinationScopes = layout.entities.map {
            $0.destinationNames.map { ObjectID.Scope(entityName: $0, storeIdentifier: identifier) }
        }
        self.keyLedger = XMLKeyLedger(
            storePath: path, storeIdentifier: image.metadata.storeIdentifier, entityNames: model.entities.map(\.name))
        self.state = Locked(State(image: image, fileIdentity: fileIdentity, fileLock: fileLock))
    }

    /// The store's metadata, as in the root element and the `_meta` entries.
    public func metadata() throws -> StoreMetadata {
        try state.withLock { state in
            try checkOpen(state)
            return state.image.metadata
        }
    }

    /// Hands out `count` new keys of `entityName`, never handed out before by any store that
    /// opened this file, in this process or another, before or after a reopen.
    ///
    /// The keys come after both the store's sequence (which the file saves) and the key ledger
    /// beside the store (`NAME.keys`, see ``XMLKeyLedger``), and the ledger records them, synced
    /// to disk, before they are returned: one small write per call, so ask for many keys at once
    /// (the engine asks once per entity per save).
    ///
    /// - Throws: ``StrataError/Code/readOnly`` for a store opened read-only,
    ///   ``StrataError/Code/storeClosed``, ``StrataError/Code/unknownEntity``,
    ///   ``StrataError/Code/invalidRequest`` for a negative count, and the ledger's errors.
    public func obtainPermanentIDs(for entityName: String, count: Int) throws -> [ObjectID] {
        let e = try entityIndex(entityName)
        guard count >= 0 else {
            throw StrataError(
                .invalidRequest, "cannot obtain a negative number (\(count)) of IDs",
                location: ["entity": entityName, "path": path])
        }
        let floor = try state.withLock { state in
            try checkOpen(state)
            if options.isReadOnly {
                throw StrataError(.readOnly, "the XML store \(path) was opened read-only", location: ["path": path])
            }
            return state.image.nextKeys[e]
        }
        if count == 0 { return [] }
        // The ledger serializes hand-outs; the store's state is only locked for the moment it
        // takes to read and raise the sequence, so fetches never wait for the disk.
        let first = try keyLedger.reserve(entity: e, count: count, floor: floor)
        let next = first + Int64(count)
        state.withLock { state in
            state.image.nextKeys[e] = max(state.image.nextKeys[e], next)
        }
        return (0..<Int64(count)).map {
            ObjectID(entityName: entityName, storeIdentifier: identifier, primaryKey: first + $0)
        }
    }

    /// Records durably that every key of the entity at `entity` up to and including `key` is
    /// taken, so that ``obtainPermanentIDs(for:count:)`` hands out only larger keys, in this
    /// process, in others and after reopening (for inserts under keys chosen elsewhere, such as a
    /// copy keeping its source's keys). Keys already taken change nothing.
    ///
    /// - Throws: what ``obtainPermanentIDs(for:count:)`` throws, and
    ///   ``StrataError/Code/invalidRequest`` for a key below 1.
    func takeKeys(through key: Int64, entity e: Int) throws {
        guard key >= 1, key < Int64.max else {
            throw StrataError(
                .invalidRequest, "cannot reserve keys through \(key); keys are 1 to \(Int64.max - 1)",
                location: ["entity": model.entities[e].name, "path": path])
        }
        let floor = try state.withLock { state in
            try checkOpen(state)
            if options.isReadOnly {
                throw StrataError(.readOnly, "the XML store \(path) was opened read-only", location: ["path": path])
            }
            return max(state.image.nextKeys[e], key + 1)
        }
        let next = try keyLedger.reserve(entity: e, count: 0, floor: floor)
        state.withLock { state in
            state.image.nextKeys[e] = max(state.image.nextKeys[e], next)
        }
    }

    /// Closes the store and releases its lock file and key ledger. Later calls throw
    /// ``StrataError/Code/storeClosed``; closing twice is harmless.
    public func close() throws {
        saveLock.withLock {
            state.withLock { state in
                state.isClosed = true
                state.fileLock = nil
            }
            keyLedger.close()
        }
        accessLock?.release()
    }

    /// Sets a hook run during each save after the temporary file is written and synced, just
    /// before it is renamed over the store: the moment a crash would leave the old file. Tests
    /// use it to interrupt a save there.
    func setBeforeRenameHook(_ hook: (@Sendable () throws -> Void)?) {
        state.withLock { $0.beforeRename = hook }
    }

    // MARK: Helpers

    func checkOpen(_ state: State) throws {
        if state.isClosed {
            throw StrataError(.storeClosed, "the XML store \(path) is closed", location: ["path": path])
        }
    }

    /// The index of `name` in the model, or ``StrataError/Code/unknownEntity``.
    func entityIndex(_ name: String) throws -> Int {
        guard let e = layout.entityIndexByName[name] else {
            _ = try model.requireEntity(name)
            return 0
        }
        return e
    }
}
