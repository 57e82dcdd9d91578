import CStrataLMDB
import Foundation
import StrataCore
import StrataLMDB
import StrataTestSupport
import Testing

/// Persistent history in the LMDB store: one transaction per save, in the save's own write
/// transaction, with the values before and after, kept across reopening and processes.
@Suite struct LMDBHistoryTests {
    /// Folders and notes; a note's title stays in the history when the note is deleted.
    static func model() throws -> Model {
        try Model(
            versionIdentifier: "h1",
            entities: [
                Entity(
                    "Folder", attributes: [Attribute("name", .string)],
                    relationships: [Relationship("notes", to: "Note", inverse: "folder", toMany: true)],
                    uniqueConstraints: [["name"]]),
                Entity(
                    "Note",
                    attributes: [
                        Attribute("title", .string, preservesValueOnDeletion: true),
                        Attribute("words", .integer64, isOptional: true),
                    ],
                    relationships: [Relationship("folder", to: "Folder", inverse: "notes")]),
            ])
    }

    static func open(_ path: String, _ options: [String: String] = [:], readOnly: Bool = false) throws -> LMDBStore {
        var storeOptions = StoreOptions(options: options)
        storeOptions.isReadOnly = readOnly
        return try openStore(path, model: model(), options: storeOptions)
    }

    static func note(_ id: ObjectID, _ title: String, words: Int64? = nil, folder: ObjectID? = nil, version: Int64 = 0)
        throws -> Snapshot
    {
        Snapshot(
            objectID: id, version: version, attributes: [.string(title), words.map { .integer($0) } ?? .null],
            relationships: [.toOne(folder)])
    }

    static func folder(_ id: ObjectID, _ name: String, notes: [ObjectID] = [], version: Int64 = 0) -> Snapshot {
        Snapshot(objectID: id, version: version, attributes: [.string(name)], relationships: [.toMany(notes)])
    }

    /// Inserts `count` notes titled `n0`, `n1`, ... one save each; returns their IDs.
    static func insertNotes(_ store: LMDBStore, _ count: Int) throws -> [ObjectID] {
        let ids = try store.obtainPermanentIDs(for: "Note", count: count)
        for (i, id) in ids.enumerated() { try store.save(SaveRequest(inserts: [note(id, "n\(i)")])) }
        return ids
    }

    @Test func eachSaveAppendsOneTransactionWithItsAuthorAndContext() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let store = try Self.open(path)
        defer { try? store.close() }
        #expect(store.recordsHistory)
        #expect(try store.lastHistoryToken() == nil)
        let ids = try store.obtainPermanentIDs(for: "Note", count: 2)
        let before = Date()
        try store.save(
            SaveRequest(
                inserts: [try Self.note(ids[0], "a"), try Self.note(ids[1], "b")], transactionAuthor: "importer",
                contextName: "background"))
        try store.save(SaveRequest())
        try store.save(SaveRequest(metadataChanges: ["k": "v"]))

        let history = try store.fetchHistory(HistoryRequest())
        #expect(history.count == 1)
        let transaction = try #require(history.first)
        #expect(transaction.token == HistoryToken(storeIdentifier: store.identifier, sequence: 1))
        #expect(try store.lastHistoryToken() == transaction.token)
        #expect(transaction.author == "importer")
        #expect(transaction.contextName == "background")
        #expect(transaction.timestamp >= before.addingTimeInterval(-1) && transaction.timestamp <= Date())
        #expect(transaction.changes == ids.map { HistoryChange(kind: .insert, objectID: $0) })
    }

    @Test func updatesRecordOldAndNewValuesAndDeletesTheirTombstones() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let store = try Self.open(path)
        defer { try? store.close() }
        let folders = try store.obtainPermanentIDs(for: "Folder", count: 2)
        let notes = try store.obtainPermanentIDs(for: "Note", count: 2)
        try store.save(
            SaveRequest(inserts: [
                Self.folder(folders[0], "inbox", notes: [notes[0]]), Self.folder(folders[1], "archive"),
                try Self.note(notes[0], "draft", words: 10, folder: folders[0]), try Self.note(notes[1], "todo"),
            ]))
        // Moves the note to the archive and renames it; the request carries no `previous`, so
        // the store reads the old values from the records it checks.
        try store.save(
            SaveRequest(updates: [
                SaveRequest.Update(try Self.note(notes[0], "final", words: 10, folder: folders[1]), expectedVersion: 1),
                SaveRequest.Update(Self.folder(folders[0], "inbox"), expectedVersion: 1),
                SaveRequest.Update(Self.folder(folders[1], "archive", notes: [notes[0]]), expectedVersion: 1),
            ]))
        try store.save(SaveRequest(deletes: [SaveRequest.Delete(notes[1], expectedVersion: 1)]))

        let history = try store.fetchHistory(HistoryRequest())
        #expect(history.map(\.token.sequence) == [1, 2, 3])
        let update = history[1].changes
        #expect(update.map(\.kind) == [.update, .update, .update])
        #expect(
            update[0].properties == [
                PropertyChange(
                    name: "title", oldValue: .attribute(.string("draft")), newValue: .attribute(.string("final"))),
                PropertyChange(
                    name: "folder", oldValue: .relationship(.toOne(folders[0])),
                    newValue: .relationship(.toOne(folders[1]))),
            ])
        #expect(
            update[1].properties == [
                PropertyChange(
                    name: "notes", oldValue: .relationship(.toMany([notes[0]])), newValue: .relationship(.toMany([])))
            ])
        #expect(
            update[2].properties == [
                PropertyChange(
                    name: "notes", oldValue: .relationship(.toMany([])), newValue: .relationship(.toMany([notes[0]])))
            ])
        #expect(
            history[2].changes == [
                HistoryChange(kind: .delete, objectID: notes[1], tombstone: ["title": .string("todo")])
            ])
    }

    @Test func aPreviousStateAtTheExpectedVersionIsUsedInsteadOfTheRecord() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let store = try Self.open(path)
        defer { try? store.close() }
        let ids = try Self.insertNotes(store, 2)
        let readsBefore = store.recordReadsInSaves
        // The caller's `previous` says "given" (at version 1): the history takes it as it is.
        try store.save(
            SaveRequest(
                updates: [
                    SaveRequest.Update(
                        try Self.note(ids[0], "new"), expectedVersion: 1,
                        previous: try Self.note(ids[0], "given", version: 1))
                ],
                deletes: [
                    SaveRequest.Delete(ids[1], expectedVersion: 1, previous: try Self.note(ids[1], "gone", version: 1))
                ]))
        // A `previous` at another version is ignored: the stored record gives the old value.
        try store.save(
            SaveRequest(updates: [
                SaveRequest.Update(
                    try Self.note(ids[0], "newer"), expectedVersion: 2,
                    previous: try Self.note(ids[0], "stale", version: 1))
            ]))
        // Recording history reads no record beyond the version checks.
        #expect(store.recordReadsInSaves - readsBefore == 3)

        let history = try store.fetchHistory(
            HistoryRequest(
                after: try store.lastHistoryToken().map {
                    HistoryToken(storeIdentifier: $0.storeIdentifier, sequence: $0.sequence - 2)
                }))
        #expect(history.count == 2)
        #expect(history[0].changes[0].properties.first?.oldValue == .attribute(.string("given")))
        #expect(history[0].changes[1].tombstone == ["title": .string("gone")])
        #expect(history[1].changes[0].properties.first?.oldValue == .attribute(.string("new")))
    }

    @Test func aFailedSaveRecordsNothing() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let store = try Self.open(path)
        defer { try? store.close() }
        let ids = try Self.insertNotes(store, 1)
        let folders = try store.obtainPermanentIDs(for: "Folder", count: 2)
        try store.save(SaveRequest(inserts: [Self.folder(folders[0], "inbox")]))
        let last = try store.lastHistoryToken()

        let conflict = #expect(throws: StrataError.self) {
            try store.save(SaveRequest(updates: [SaveRequest.Update(try Self.note(ids[0], "x"), expectedVersion: 7)]))
        }
        #expect(conflict?.code == .conflict)
        let duplicate = #expect(throws: StrataError.self) {
            try store.save(SaveRequest(inserts: [Self.folder(folders[1], "inbox")]))
        }
        #expect(duplicate?.code == .uniqueConstraint)

        #expect(try store.lastHistoryToken() == last)
        #expect(try store.fetchHistory(HistoryRequest()).count == 2)
        try store.save(SaveRequest(inserts: [Self.folder(folders[1], "archive")]))
        #expect(try store.lastHistoryToken()?.sequence == 3)
    }

    @Test func filtersAndLimitsApplyToTheTransactionsReturned() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let store = try Self.open(path)
        defer { try? store.close() }
        let folders = try store.obtainPermanentIDs(for: "Folder", count: 3)
        let notes = try store.obtainPermanentIDs(for: "Note", count: 3)
        for i in 0..<3 {
            try store.save(
                SaveRequest(
                    inserts: [Self.folder(folders[i], "f\(i)")], transactionAuthor: i == 1 ? "sync" : "app"))
            try store.save(SaveRequest(inserts: [try Self.note(notes[i], "n\(i)")], transactionAuthor: "app"))
        }
        let byAuthor = try store.fetchHistory(HistoryRequest(authors: ["sync"]))
        #expect(byAuthor.map(\.token.sequence) == [3])
        let notesOnly = try store.fetchHistory(HistoryRequest(entityNames: ["Note"], limit: 2))
        #expect(notesOnly.map(\.token.sequence) == [2, 4])
        let after = try store.fetchHistory(
            HistoryRequest(after: HistoryToken(storeIdentifier: store.identifier, sequence: 4)))
        #expect(after.map(\.token.sequence) == [5, 6])
        #expect(try store.fetchHistory(HistoryRequest(limit: 0)).isEmpty)
        let foreign = #expect(throws: StrataError.self) {
            try store.fetchHistory(HistoryRequest(after: HistoryToken(storeIdentifier: "other", sequence: 1)))
        }
        #expect(foreign?.code == .invalidRequest)
    }

    @Test func twoStoresOnOneDirectorySeeEachOthersTransactionsInOneSequence() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let first = try Self.open(path)
        defer { try? first.close() }
        let second = try Self.open(path)
        defer { try? second.close() }
        let ids = try first.obtainPermanentIDs(for: "Note", count: 4)
        try first.save(SaveRequest(inserts: [try Self.note(ids[0], "a")], transactionAuthor: "first"))
        #expect(try second.lastHistoryToken()?.sequence == 1)
        try second.save(SaveRequest(inserts: [try Self.note(ids[1], "b")], transactionAuthor: "second"))
        try first.save(SaveRequest(inserts: [try Self.note(ids[2], "c")], transactionAuthor: "first"))
        try second.save(SaveRequest(inserts: [try Self.note(ids[3], "d")], transactionAuthor: "second"))
        for store in [first, second] {
            let history = try store.fetchHistory(HistoryRequest())
            #expect(history.map(\.token.sequence) == [1, 2, 3, 4])
            #expect(history.map(\.author) == ["first", "second", "first", "second"])
        }
    }

    @Test func anotherProcessesSavesAreSeenAndSequencesStayMonotonic() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let model = try ProbeModels.lmdb()
        let store = try openStore(path, model: model)
        defer { try? store.close() }
        func item(_ id: ObjectID) -> Snapshot {
            Snapshot(
                objectID: id, version: 0, attributes: [.string("here-\(id.primaryKey!)"), .integer(0)],
                relationships: [])
        }
        try store.save(SaveRequest(inserts: try store.obtainPermanentIDs(for: "Item", count: 1).map(item)))
        let first = try #require(try store.lastHistoryToken())
        // The probe, another process, saves three times (two items each) while this store is open.
        #expect(try runProbe(["insert", path, "2", "3"]).output.hasPrefix("ok "))
        #expect(try store.lastHistoryToken()?.sequence == 4)
        let theirs = try store.fetchHistory(HistoryRequest(after: first))
        #expect(theirs.map(\.token.sequence) == [2, 3, 4])
        #expect(theirs.allSatisfy { $0.changes.count == 2 && $0.changes.allSatisfy { $0.kind == .insert } })
        try store.save(SaveRequest(inserts: try store.obtainPermanentIDs(for: "Item", count: 1).map(item)))
        #expect(try store.lastHistoryToken()?.sequence == 5)
    }

    @Test func tokensSurviveReopeningAndSequencesContinue() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        var store = try Self.open(path)
        _ = try Self.insertNotes(store, 2)
        let token = try #require(try store.lastHistoryToken())
        let encoded = try JSONEncoder().encode(token)
        try store.close()

        store = try Self.open(path)
        defer { try? store.close() }
        let decoded = try JSONDecoder().decode(HistoryToken.self, from: encoded)
        #expect(try store.lastHistoryToken() == decoded)
        _ = try Self.insertNotes(store, 1)
        #expect(try store.fetchHistory(HistoryRequest(after: decoded)).map(\.token.sequence) == [3])
    }

    @Test func pruningThroughATokenBeforeADateAndKeepingTheLast() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let store = try Self.open(path)
        defer { try? store.close() }
        _ = try Self.insertNotes(store, 6)
        let id = store.identifier
        func token(_ sequence: Int64) -> HistoryToken { HistoryToken(storeIdentifier: id, sequence: sequence) }

        #expect(try store.pruneHistory(.through(token(2))) == 2)
        #expect(try store.fetchHistory(HistoryRequest()).map(\.token.sequence) == [3, 4, 5, 6])
        let expired = #expect(throws: StrataError.self) { try store.fetchHistory(HistoryRequest(after: token(1))) }
        #expect(expired?.code == .historyExpired)
        #expect(try store.fetchHistory(HistoryRequest(after: token(2))).count == 4)

        #expect(try store.pruneHistory(.keepingLast(3)) == 1)
        #expect(try store.fetchHistory(HistoryRequest()).map(\.token.sequence) == [4, 5, 6])
        #expect(try store.pruneHistory(.before(Date().addingTimeInterval(-3_600))) == 0)
        #expect(try store.pruneHistory(.before(Date().addingTimeInterval(1))) == 3)
        #expect(try store.fetchHistory(HistoryRequest()).isEmpty)

        // Every transaction is gone, yet the last token stands and sequences never come back.
        #expect(try store.lastHistoryToken() == token(6))
        _ = try Self.insertNotes(store, 1)
        #expect(try store.fetchHistory(HistoryRequest(after: token(6))).map(\.token.sequence) == [7])
        let foreign = #expect(throws: StrataError.self) {
            try store.pruneHistory(.through(HistoryToken(storeIdentifier: "other", sequence: 1)))
        }
        #expect(foreign?.code == .invalidRequest)
    }

    @Test func savesPruneBeyondTheKeptTransactions() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let store = try Self.open(path, [HistoryOptions.keepTransactionsOption: "3"])
        defer { try? store.close() }
        _ = try Self.insertNotes(store, 5)
        #expect(try store.fetchHistory(HistoryRequest()).map(\.token.sequence) == [3, 4, 5])
        let expired = #expect(throws: StrataError.self) {
            try store.fetchHistory(HistoryRequest(after: HistoryToken(storeIdentifier: store.identifier, sequence: 1)))
        }
        #expect(expired?.code == .historyExpired)
    }

    @Test func savesPruneTransactionsOlderThanTheKeptDays() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        var store = try Self.open(path)
        _ = try Self.insertNotes(store, 2)
        try store.close()
        try Self.rewriteHistory(path) { sequence, record in
            // Makes the first transaction eight days old.
            guard sequence == 1 else { return record }
            var transaction = try HistoryRecordCodec.decode(
                record, token: HistoryToken(storeIdentifier: "x", sequence: sequence))
            transaction.timestamp = Date().addingTimeInterval(-8 * 86_400)
            return HistoryRecordCodec.encode(transaction)
        }
        store = try Self.open(path, [HistoryOptions.keepDaysOption: "7"])
        defer { try? store.close() }
        _ = try Self.insertNotes(store, 1)
        #expect(try store.fetchHistory(HistoryRequest()).map(\.token.sequence) == [2, 3])
    }

    @Test func historyOffRecordsNothing() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let store = try Self.open(path, [HistoryOptions.enabledOption: "off"])
        defer { try? store.close() }
        #expect(!store.recordsHistory)
        _ = try Self.insertNotes(store, 2)
        #expect(try store.lastHistoryToken() == nil)
        #expect(try store.fetchHistory(HistoryRequest()).isEmpty)
        let bad = #expect(throws: StrataError.self) { try Self.open(path, [HistoryOptions.enabledOption: "maybe"]) }
        #expect(bad?.code == .invalidOption)
    }

    @Test func aDamagedTransactionIsATypedErrorAndObjectsStayReadable() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        var store = try Self.open(path)
        let ids = try Self.insertNotes(store, 3)
        try store.close()
        try Self.rewriteHistory(path) { sequence, record in sequence == 2 ? [1, 2, 3] : record }

        store = try Self.open(path)
        defer { try? store.close() }
        let error = #expect(throws: StrataError.self) { try store.fetchHistory(HistoryRequest()) }
        #expect(error?.code == .storeCorrupt)
        #expect(error?.location["token"] == "\(store.identifier):2")
        #expect(error?.location["path"] == store.path)
        #expect(try store.snapshots(of: "Note", among: ids).count == 3)
        let after = HistoryToken(storeIdentifier: store.identifier, sequence: 2)
        #expect(try store.fetchHistory(HistoryRequest(after: after)).map(\.token.sequence) == [3])
        // Saves go on; pruning through the damaged transaction removes it.
        _ = try Self.insertNotes(store, 1)
        #expect(try store.pruneHistory(.through(after)) == 2)
        #expect(try store.fetchHistory(HistoryRequest()).map(\.token.sequence) == [3, 4])
    }

    @Test func aStoreMadeBeforeHistoryOpensAndGainsItWhenWritable() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        var store = try Self.open(path)
        _ = try Self.insertNotes(store, 1)
        try store.close()
        try Self.dropHistoryDatabase(path)

        store = try Self.open(path, readOnly: true)
        #expect(!store.recordsHistory)
        #expect(try store.lastHistoryToken() == nil)
        #expect(try store.fetchHistory(HistoryRequest()).isEmpty)
        #expect(try Self.databaseNames(path).contains("_hist") == false)
        try store.close()

        store = try Self.open(path)
        defer { try? store.close() }
        #expect(store.recordsHistory)
        #expect(try Self.databaseNames(path).contains("_hist"))
        _ = try Self.insertNotes(store, 1)
        #expect(try store.fetchHistory(HistoryRequest()).map(\.token.sequence) == [1])
    }

    @Test func aNewStoreListsTheHistoryDatabase() throws {
        let path = temporaryStorePath()
        defer { cleanUp(path) }
        let store = try Self.open(path)
        try store.close()
        #expect(try Self.databaseNames(path).contains("_hist"))
    }

    // MARK: Below the store's API (the store must be closed)

    /// Runs `body` in a write transaction of the environment at `path`, opened directly.
    static func withRawTransaction(_ path: String, _ body: (OpaquePointer?) throws -> Void) throws {
        var env: OpaquePointer?
        try #require(mdb_env_create(&env) == 0)
        defer { mdb_env_close(env) }
        mdb_env_set_maxdbs(env, 64)
        try #require(mdb_env_open(env, path, 0, 0o600) == 0)
        var txn: OpaquePointer?
        try #require(mdb_txn_begin(env, nil, 0, &txn) == 0)
        do {
            try body(txn)
        } catch {
            mdb_txn_abort(txn)
            throw error
        }
        try #require(mdb_txn_commit(txn) == 0)
    }

    /// Replaces each history record with what `transform` returns for it.
    static func rewriteHistory(_ path: String, _ transform: (Int64, [UInt8]) throws -> [UInt8]) throws {
        try withRawTransaction(path) { txn in
            var dbi: MDB_dbi = 0
            try #require(mdb_dbi_open(txn, "_hist", 0, &dbi) == 0)
            var entries: [([UInt8], [UInt8])] = []
            var cursor: OpaquePointer?
            try #require(mdb_cursor_open(txn, dbi, &cursor) == 0)
            var k = MDB_val()
            var v = MDB_val()
            var op = MDB_FIRST
            while mdb_cursor_get(cursor, &k, &v, op) == 0 {
                entries.append(
                    (
                        Array(UnsafeRawBufferPointer(start: k.mv_data, count: k.mv_size)),
                        Array(UnsafeRawBufferPointer(start: v.mv_data, count: v.mv_size))
                    ))
                op = MDB_NEXT
            }
            mdb_cursor_close(cursor)
            for (key, value) in entries {
                let sequence = key.withUnsafeBytes { Int64(bigEndian: $0.loadUnaligned(as: Int64.self)) }
                var newValue = try transform(sequence, value)
                var keyBytes = key
                try keyBytes.withUnsafeMutableBytes { kb in
                    try newValue.withUnsafeMutableBytes { vb in
                        var k = MDB_val(mv_size: kb.count, mv_data: kb.baseAddress)
                        var v = MDB_val(mv_size: vb.count, mv_data: vb.baseAddress)
                        try #require(mdb_put(txn, dbi, &k, &v, 0) == 0)
                    }
                }
            }
        }
    }

    /// Deletes the history database and the pruned sequence, as in a store made before history.
    static func dropHistoryDatabase(_ path: String) throws {
        try withRawTransaction(path) { txn in
            var dbi: MDB_dbi = 0
            try #require(mdb_dbi_open(txn, "_hist", 0, &dbi) == 0)
            try #require(mdb_drop(txn, dbi, 1) == 0)
        }
    }

    /// The names of the environment's named databases (what `mdb_stat -a` lists).
    static func databaseNames(_ path: String) throws -> [String] {
        var names: [String] = []
        try withRawTransaction(path) { txn in
            var cursor: OpaquePointer?
            try #require(mdb_cursor_open(txn, 1, &cursor) == 0)
            var k = MDB_val()
            var v = MDB_val()
            var op = MDB_FIRST
            while mdb_cursor_get(cursor, &k, &v, op) == 0 {
                names.append(
                    String(decoding: UnsafeRawBufferPointer(start: k.mv_data, count: k.mv_size), as: UTF8.self))
                op = MDB_NEXT
            }
            mdb_cursor_close(cursor)
        }
        return names
    }
}
