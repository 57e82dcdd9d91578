import CStrataSQLite
import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataSQLite

/// The SQLite store's persistent history: one row of `_strata_history` per save, written in the
/// save's transaction.
@Suite struct SQLiteHistoryTests {
    /// `Note` (title kept after deletion, body) with a to-one `folder`; `Folder` (name) with the
    /// to-many `notes`; `Tag` (label, unique).
    static func model() throws -> Model {
        try Model(
            versionIdentifier: "history",
            entities: [
                Entity(
                    "Note",
                    attributes: [
                        Attribute("title", .string, preservesValueOnDeletion: true),
                        Attribute("body", .string, isOptional: true),
                    ],
                    relationships: [Relationship("folder", to: "Folder", inverse: "notes")]),
                Entity(
                    "Folder", attributes: [Attribute("name", .string)],
                    relationships: [Relationship("notes", to: "Note", inverse: "folder", toMany: true)]),
                Entity("Tag", attributes: [Attribute("label", .string)], uniqueConstraints: [["label"]]),
            ])
    }

    private func open(_ url: StoreURL, _ options: [String: String] = [:]) throws -> SQLiteStore {
        try openStore(url, model: Self.model(), options: StoreOptions(options: options))
    }

    private func note(_ id: ObjectID, _ title: String, body: String? = nil, folder: ObjectID? = nil, version: Int64 = 0)
        -> Snapshot
    {
        Snapshot(
            objectID: id, version: version, attributes: [.string(title), body.map(Value.string) ?? .null],
            relationships: [.toOne(folder)])
    }

    private func folder(_ id: ObjectID, _ name: String, notes: [ObjectID] = [], version: Int64 = 0) -> Snapshot {
        Snapshot(objectID: id, version: version, attributes: [.string(name)], relationships: [.toMany(notes)])
    }

    private func tag(_ id: ObjectID, _ label: String, version: Int64 = 0) -> Snapshot {
        Snapshot(objectID: id, version: version, attributes: [.string(label)], relationships: [])
    }

    /// Inserts `count` notes titled `n0`, `n1`, ... in one save each; returns their IDs.
    private func insertNotes(_ store: SQLiteStore, _ count: Int, author: String? = nil) throws -> [ObjectID] {
        let ids = try store.obtainPermanentIDs(for: "Note", count: count)
        for (i, id) in ids.enumerated() {
            try store.save(SaveRequest(inserts: [note(id, "n\(i)")], transactionAuthor: author))
        }
        return ids
    }

    private func historyRowCount(_ store: SQLiteStore) throws -> Int64 {
        try store.withWriter { connection in
            try connection.scalarText("SELECT count(*) FROM \"_strata_history\"").flatMap { Int64($0) } ?? -1
        }
    }

    // MARK: Values

    @Test func eachSaveRecordsOneTransactionWithItsAuthorContextAndValues() throws {
        let store = try open(temporaryStoreURL())
        #expect(try store.lastHistoryToken() == nil)
        let noteID = try store.obtainPermanentIDs(for: "Note", count: 1)[0]
        let folderID = try store.obtainPermanentIDs(for: "Folder", count: 1)[0]
        try store.save(
            SaveRequest(
                inserts: [note(noteID, "draft", folder: folderID), folder(folderID, "inbox", notes: [noteID])],
                transactionAuthor: "app", contextName: "editor"))
        try store.save(
            SaveRequest(updates: [.init(note(noteID, "final", body: "text", folder: folderID), expectedVersion: 1)]))
        try store.save(SaveRequest(deletes: [.init(noteID, expectedVersion: 2)]))

        let history = try store.fetchHistory(HistoryRequest())
        #expect(history.map(\.token.sequence) == [1, 2, 3])
        #expect(history.allSatisfy { $0.token.storeIdentifier == store.identifier })
        #expect(try store.lastHistoryToken() == history.last?.token)
        #expect(history[0].author == "app" && history[0].contextName == "editor")
        #expect(history[1].author == nil && history[1].contextName == nil)
        #expect(
            history[0].changes == [
                HistoryChange(kind: .insert, objectID: noteID), HistoryChange(kind: .insert, objectID: folderID),
            ])
        // The update gave no previous state: the old values come from the stored row.
        #expect(
            history[1].changes == [
                HistoryChange(
                    kind: .update, objectID: noteID,
                    properties: [
                        PropertyChange(name: "title", oldValue: .attribute("draft"), newValue: .attribute("final")),
                        PropertyChange(name: "body", oldValue: .attribute(.null), newValue: .attribute("text")),
                    ])
            ])
        // The delete keeps the title, which the model marks to survive deletion.
        #expect(history[2].changes == [HistoryChange(kind: .delete, objectID: noteID, tombstone: ["title": "final"])])
        #expect(abs(history[2].timestamp.timeIntervalSinceNow) < 600)
    }

    @Test func anUpdateTakesOldValuesFromPreviousOnlyAtTheExpectedVersion() throws {
        let store = try open(temporaryStoreURL())
        let id = try insertNotes(store, 1)[0]
        // A previous at the expected version is trusted: its (made-up) title is the old value.
        let trusted = note(id, "as the caller saw it", version: 1)
        try store.save(SaveRequest(updates: [.init(note(id, "second"), expectedVersion: 1, previous: trusted)]))
        // A previous at another version is ignored: the stored row gives the old value.
        let stale = note(id, "stale", version: 1)
        try store.save(SaveRequest(updates: [.init(note(id, "third"), expectedVersion: 2, previous: stale)]))
        let updates = try store.fetchHistory(HistoryRequest()).dropFirst().map { $0.changes[0].properties[0] }
        #expect(updates.map(\.oldValue) == [.attribute("as the caller saw it"), .attribute("second")])
        #expect(updates.map(\.newValue) == [.attribute("second"), .attribute("third")])
    }

    @Test func relationshipChangesAndTombstonesAreRecorded() throws {
        let store = try open(temporaryStoreURL())
        let notes = try store.obtainPermanentIDs(for: "Note", count: 2)
        let folders = try store.obtainPermanentIDs(for: "Folder", count: 2)
        try store.save(
            SaveRequest(inserts: [
                note(notes[0], "a", folder: folders[0]), note(notes[1], "b", folder: folders[0]),
                folder(folders[0], "one", notes: notes), folder(folders[1], "two"),
            ]))
        // Note b moves to folder two.
        try store.save(
            SaveRequest(updates: [
                .init(note(notes[1], "b", folder: folders[1]), expectedVersion: 1),
                .init(folder(folders[0], "one", notes: [notes[0]]), expectedVersion: 1),
                .init(folder(folders[1], "two", notes: [notes[1]]), expectedVersion: 1),
            ]))
        // A folder's delete keeps nothing (no attribute of Folder is marked).
        try store.save(
            SaveRequest(
                updates: [.init(note(notes[1], "b"), expectedVersion: 2)],
                deletes: [.init(folders[1], expectedVersion: 2)]))
        let history = try store.fetchHistory(
            HistoryRequest(after: HistoryToken(storeIdentifier: store.identifier, sequence: 1)))
        #expect(
            history[0].changes.map(\.properties) == [
                [
                    PropertyChange(
                        name: "folder", oldValue: .relationship(.toOne(folders[0])),
                        newValue: .relationship(.toOne(folders[1])))
                ],
                [
                    PropertyChange(
                        name: "notes", oldValue: .relationship(.toMany(notes)),
                        newValue: .relationship(.toMany([notes[0]])))
                ],
                [
                    PropertyChange(
                        name: "notes", oldValue: .relationship(.toMany([])),
                        newValue: .relationship(.toMany([notes[1]])))
                ],
            ])
        #expect(history[1].changes.map(\.kind) == [.update, .delete])
        #expect(history[1].changes[1] == HistoryChange(kind: .delete, objectID: folders[1]))
    }

    // MARK: Atomicity

    @Test func aSaveThatFailsWritesNoHistory() throws {
        let store = try open(temporaryStoreURL())
        let ids = try store.obtainPermanentIDs(for: "Tag", count: 3)
        try store.save(SaveRequest(inserts: [tag(ids[0], "red"), tag(ids[1], "blue")]))
        let before = try store.lastHistoryToken()
        // A conflict: the expected version is stale.
        let conflict = strataError {
            try store.save(SaveRequest(updates: [.init(tag(ids[0], "green"), expectedVersion: 7)]))
        }
        #expect(conflict?.code == .conflict)
        // A unique violation, found by SQLite after the history rows' reads.
        let unique = strataError { try store.save(SaveRequest(inserts: [tag(ids[2], "red")])) }
        #expect(unique?.code == .uniqueConstraint)
        let duplicate = strataError {
            try store.save(SaveRequest(updates: [.init(tag(ids[1], "red"), expectedVersion: 1)]))
        }
        #expect(duplicate?.code == .uniqueConstraint)
        #expect(try store.lastHistoryToken() == before)
        #expect(try historyRowCount(store) == 1)
        // The next save takes the next sequence: the failed ones used none.
        try store.save(SaveRequest(inserts: [tag(ids[2], "green")]))
        #expect(try store.lastHistoryToken()?.sequence == 2)
    }

    @Test func savesThatChangeNoObjectRecordNothing() throws {
        let store = try open(temporaryStoreURL())
        try store.save(SaveRequest())
        try store.save(SaveRequest(metadataChanges: ["k": "v"]))
        #expect(try store.lastHistoryToken() == nil)
        #expect(try store.fetchHistory(HistoryRequest()).isEmpty)
        #expect(try historyRowCount(store) == 0)
    }

    @Test func historyOffRecordsNothingAndABadOptionIsRefused() throws {
        let url = temporaryStoreURL()
        let store = try open(url, ["history": "off"])
        #expect(!store.recordsHistory)
        _ = try insertNotes(store, 3)
        #expect(try store.lastHistoryToken() == nil)
        #expect(try historyRowCount(store) == 0)
        try store.close()
        for (name, value) in [("history", "maybe"), ("historyKeepDays", "0"), ("historyKeepTransactions", "-3")] {
            let error = strataError { _ = try open(url, [name: value]) }
            #expect(error?.code == .invalidOption, "\(name)=\(value)")
            #expect(error?.location["option"] == name)
        }
        let reopened = try open(url, ["history": "ON"])
        #expect(reopened.recordsHistory)
    }

    // MARK: Reading

    @Test func filtersByAuthorAndEntityAndCountsTheLimitAfterFiltering() throws {
        let store = try open(temporaryStoreURL())
        _ = try insertNotes(store, 2, author: "sync")
        let tags = try store.obtainPermanentIDs(for: "Tag", count: 3)
        for (i, id) in tags.enumerated() {
            try store.save(SaveRequest(inserts: [tag(id, "t\(i)")], transactionAuthor: "app"))
        }
        _ = try insertNotes(store, 1)
        let app = try store.fetchHistory(HistoryRequest(authors: ["app"]))
        #expect(app.map(\.token.sequence) == [3, 4, 5])
        #expect(
            try store.fetchHistory(HistoryRequest(authors: ["app", "sync"], limit: 4)).map(\.token.sequence) == [
                1, 2, 3, 4,
            ])
        #expect(try store.fetchHistory(HistoryRequest(authors: [])).isEmpty)
        let notes = try store.fetchHistory(HistoryRequest(entityNames: ["Note"], limit: 3))
        #expect(notes.map(\.token.sequence) == [1, 2, 6])
        let after = HistoryToken(storeIdentifier: store.identifier, sequence: 3)
        #expect(try store.fetchHistory(HistoryRequest(after: after, limit: 1)).map(\.token.sequence) == [4])
        #expect(try store.fetchHistory(HistoryRequest(limit: 0)).isEmpty)
        let other = strataError {
            _ = try store.fetchHistory(HistoryRequest(after: HistoryToken(storeIdentifier: "elsewhere", sequence: 1)))
        }
        #expect(other?.code == .invalidRequest)
        #expect(strataError { _ = try store.fetchHistory(HistoryRequest(limit: -1)) }?.code == .invalidRequest)
    }

    @Test func theHistoryReadSeeksThePrimaryKey() throws {
        let store = try open(temporaryStoreURL())
        _ = try insertNotes(store, 3)
        for (authors, limited) in [(false, false), (true, false), (false, true), (true, true)] {
            let sql = SQLiteHistoryTable.readSQL(filteringAuthors: authors, limited: limited)
            let plan: [String] = try store.withWriter { connection in
                let statement = try connection.prepare("EXPLAIN QUERY PLAN " + sql)
                defer { statement.reset() }
                var details: [String] = []
                while try statement.step() { details.append(statement.string(3)) }
                return details
            }
            #expect(
                plan.contains { $0.contains("SEARCH _strata_history USING INTEGER PRIMARY KEY (rowid>?)") },
                "\(sql): \(plan)")
            #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(sql) sorts: \(plan)")
        }
    }

    @Test func aDamagedRecordIsStoreCorruptNamingItsTokenAndObjectsStillRead() throws {
        let url = temporaryStoreURL()
        let store = try open(url)
        let ids = try insertNotes(store, 3)
        try store.close()
        try runSQLite(url.location, "UPDATE \"_strata_history\" SET record = X'01FF' WHERE sequence = 2")
        let reopened = try open(url)
        let error = strataError { _ = try reopened.fetchHistory(HistoryRequest()) }
        #expect(error?.code == .storeCorrupt)
        #expect(error?.location["token"] == "\(store.identifier):2")
        #expect(error?.message.contains("\(store.identifier):2") == true)
        // Past the damaged one, and before it, history still reads; so do the objects.
        let after = HistoryToken(storeIdentifier: store.identifier, sequence: 2)
        #expect(try reopened.fetchHistory(HistoryRequest(after: after)).map(\.token.sequence) == [3])
        #expect(try reopened.fetchHistory(HistoryRequest(limit: 1)).map(\.token.sequence) == [1])
        #expect(try reopened.snapshots(of: "Note", among: nil).map(\.objectID) == ids)
        #expect(try reopened.lastHistoryToken()?.sequence == 3)
    }

    // MARK: Processes and reopening

    @Test func twoStoresOnOneFileSeeEachOthersTransactionsInOneSequence() throws {
        let url = temporaryStoreURL()
        let first = try open(url)
        let second = try open(url)
        #expect(try second.lastHistoryToken() == nil)
        try first.save(
            SaveRequest(
                inserts: [note(try first.obtainPermanentIDs(for: "Note", count: 1)[0], "one")],
                transactionAuthor: "first"))
        #expect(try second.lastHistoryToken()?.sequence == 1)
        #expect(try second.fetchHistory(HistoryRequest()).map(\.author) == ["first"])
        for round in 0..<5 {
            for (store, name) in [(first, "first"), (second, "second")] {
                let id = try store.obtainPermanentIDs(for: "Note", count: 1)[0]
                try store.save(SaveRequest(inserts: [note(id, "\(name) \(round)")], transactionAuthor: name))
                #expect(try first.lastHistoryToken() == second.lastHistoryToken())
            }
        }
        let seen = try first.fetchHistory(HistoryRequest())
        #expect(seen == (try second.fetchHistory(HistoryRequest())))
        #expect(seen.map(\.token.sequence) == Array(1...11))
        #expect(seen.dropFirst().map(\.author) == Array(repeating: ["first", "second"], count: 5).flatMap { $0 })
    }

    @Test func reopeningKeepsTokensAndTheSequenceGoesOn() throws {
        let url = temporaryStoreURL()
        let store = try open(url)
        _ = try insertNotes(store, 2)
        let before = try store.fetchHistory(HistoryRequest())
        try store.close()
        let reopened = try open(url)
        #expect(try reopened.fetchHistory(HistoryRequest()) == before)
        _ = try insertNotes(reopened, 1)
        #expect(try reopened.lastHistoryToken() == HistoryToken(storeIdentifier: store.identifier, sequence: 3))
        // A token survives its text form and JSON.
        let token = try #require(before.last?.token)
        #expect(try HistoryToken(parsing: token.description) == token)
        #expect(try JSONDecoder().decode(HistoryToken.self, from: JSONEncoder().encode(token)) == token)
    }

    @Test func aStoreMadeBeforeHistoryGetsTheTableOnAWritableOpenOnly() throws {
        let url = temporaryStoreURL()
        let store = try open(url)
        let ids = try insertNotes(store, 2)
        try store.close()
        try runSQLite(url.location, "DROP TABLE \"_strata_history\"")
        let readOnly = try open(url, [:], readOnly: true)
        #expect(try readOnly.fetchHistory(HistoryRequest()).isEmpty)
        #expect(try readOnly.lastHistoryToken() == nil)
        #expect(try readOnly.snapshots(of: "Note", among: nil).map(\.objectID) == ids)
        try readOnly.close()
        #expect(try runSQLite(url.location, "SELECT count(*) FROM sqlite_master WHERE name = '_strata_history'") == "0")
        let writable = try open(url)
        _ = try insertNotes(writable, 1)
        #expect(try writable.fetchHistory(HistoryRequest()).map(\.token.sequence) == [1])
    }

    private func open(_ url: StoreURL, _ options: [String: String], readOnly: Bool) throws -> SQLiteStore {
        try openStore(url, model: Self.model(), options: StoreOptions(isReadOnly: readOnly, options: options))
    }

    // MARK: Pruning

    @Test func pruningThroughATokenBeforeADateAndKeepingTheLast() throws {
        let url = temporaryStoreURL()
        let store = try open(url)
        _ = try insertNotes(store, 10)
        let id = store.identifier
        #expect(try store.pruneHistory(.through(HistoryToken(storeIdentifier: id, sequence: 3))) == 3)
        #expect(try store.fetchHistory(HistoryRequest()).first?.token.sequence == 4)
        #expect(try store.pruneHistory(.keepingLast(4)) == 3)
        #expect(try store.fetchHistory(HistoryRequest()).map(\.token.sequence) == [7, 8, 9, 10])
        // Transactions 7 and 8 were written a day ago.
        try store.withWriter {
            try $0.execute("UPDATE \"_strata_history\" SET timestamp = timestamp - 86400 WHERE sequence <= 8")
        }
        #expect(try store.pruneHistory(.before(Date().addingTimeInterval(-3600))) == 2)
        #expect(try store.fetchHistory(HistoryRequest()).map(\.token.sequence) == [9, 10])

        // A reader whose token is older than what was pruned must start over.
        let expired = strataError {
            _ = try store.fetchHistory(HistoryRequest(after: HistoryToken(storeIdentifier: id, sequence: 7)))
        }
        #expect(expired?.code == .historyExpired)
        #expect(expired?.location["prunedThrough"] == "8")
        #expect(
            try store.fetchHistory(HistoryRequest(after: HistoryToken(storeIdentifier: id, sequence: 8))).count == 2)

        // Pruning everything leaves the last token, and the sequence goes on from it, after reopening.
        #expect(try store.pruneHistory(.keepingLast(0)) == 2)
        #expect(try store.lastHistoryToken()?.sequence == 10)
        #expect(try store.pruneHistory(.through(HistoryToken(storeIdentifier: id, sequence: 50))) == 0)
        try store.close()
        let reopened = try open(url)
        _ = try insertNotes(reopened, 1)
        #expect(try reopened.fetchHistory(HistoryRequest()).map(\.token.sequence) == [11])
        #expect(
            strataError { try reopened.pruneHistory(.through(HistoryToken(storeIdentifier: "other", sequence: 1))) }?
                .code == .invalidRequest)
        #expect(strataError { try reopened.pruneHistory(.keepingLast(-1)) }?.code == .invalidRequest)
    }

    @Test func aLargePruneRunsInBatches() throws {
        let store = try open(temporaryStoreURL(), ["historyKeepTransactions": "100000"])
        let count = HistoryOptions.pruneBatch + 5
        let ids = try store.obtainPermanentIDs(for: "Tag", count: count)
        let tokens = try store.inWriteTransaction { connection in
            try ids.map { id in
                try store.appendHistory(
                    for: SaveRequest(inserts: [tag(id, "\(id.primaryKey!)")]), storedStates: [:], on: connection)
            }
        }
        #expect(tokens.map { $0?.sequence } == (1...Int64(count)).map { $0 })
        #expect(tokens.allSatisfy { $0?.storeIdentifier == store.identifier })
        #expect(try store.pruneHistory(.keepingLast(2)) == count - 2)
        #expect(try store.fetchHistory(HistoryRequest()).map(\.token.sequence) == [Int64(count - 1), Int64(count)])
    }

    @Test func savesPruneAutomaticallyByCountAndByAge() throws {
        let url = temporaryStoreURL()
        let counted = try open(url, ["historyKeepTransactions": "3"])
        _ = try insertNotes(counted, 5)
        #expect(try counted.fetchHistory(HistoryRequest()).map(\.token.sequence) == [3, 4, 5])
        try counted.close()

        let aged = try open(url, ["historyKeepDays": "2"])
        try aged.withWriter {
            try $0.execute("UPDATE \"_strata_history\" SET timestamp = timestamp - 3 * 86400 WHERE sequence <= 4")
        }
        _ = try insertNotes(aged, 1)
        #expect(try aged.fetchHistory(HistoryRequest()).map(\.token.sequence) == [5, 6])
        // With nothing due, a save prunes nothing.
        _ = try insertNotes(aged, 1)
        #expect(try aged.fetchHistory(HistoryRequest()).map(\.token.sequence) == [5, 6, 7])
    }

    // MARK: Batch operations

    @Test func batchUpdatesAndDeletesRecordOneTransactionEach() throws {
        let store = try open(temporaryStoreURL())
        let notes = try store.obtainPermanentIDs(for: "Note", count: 3)
        let folderID = try store.obtainPermanentIDs(for: "Folder", count: 1)[0]
        try store.save(
            SaveRequest(inserts: [
                note(notes[0], "a", folder: folderID), note(notes[1], "b", folder: folderID), note(notes[2], "c"),
                folder(folderID, "f", notes: [notes[0], notes[1]]),
            ]))
        _ = try store.batchUpdate(
            entityName: "Note", predicate: try ObjectPredicate(format: "title != 'c'"), values: ["body": "x"])
        _ = try store.batchDelete(entityName: "Note", predicate: try ObjectPredicate(format: "title == 'a'"))
        _ = try store.batchUpdate(
            entityName: "Note", predicate: try ObjectPredicate(format: "title == 'none'"), values: ["body": "y"])
        let history = try store.fetchHistory(HistoryRequest())
        #expect(history.count == 3)
        #expect(
            history[1].changes
                == [notes[0], notes[1]].map {
                    HistoryChange(
                        kind: .update, objectID: $0,
                        properties: [
                            PropertyChange(name: "body", oldValue: .attribute(.null), newValue: .attribute("x"))
                        ])
                })
        #expect(
            history[2].changes == [
                HistoryChange(
                    kind: .update, objectID: folderID,
                    properties: [
                        PropertyChange(
                            name: "notes", oldValue: .relationship(.toMany([notes[0], notes[1]])),
                            newValue: .relationship(.toMany([notes[1]])))
                    ]),
                HistoryChange(kind: .delete, objectID: notes[0], tombstone: ["title": "a"]),
            ])
    }
}

/// Runs `sql` on the database at `path` with its own connection (as the sqlite3 tool would);
/// returns the first column of the first row, if any.
@discardableResult
private func runSQLite(_ path: String, _ sql: String) throws -> String? {
    let connection = try SQLiteConnection(path: path, flags: SQLITE_OPEN_READWRITE, busyTimeoutMilliseconds: 5000)
    defer { connection.close() }
    return try connection.scalarText(sql)
}
