import Foundation
import StrataCore
import StrataTestSupport
import Testing

@testable import StrataXML

/// Persistent history in the XML store: `<_history>` inside the file, one `<_transaction>` per
/// save, written in the same atomic rename as the save, adopted from other processes' saves.
@Suite struct XMLHistoryTests {
    /// Folders and notes; a note's title stays in the history when the note is deleted.
    static let model: Model = try! Model(
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

    static func open(_ url: StoreURL, _ options: [String: String] = [:], readOnly: Bool = false) throws -> XMLStore {
        var storeOptions = StoreOptions(options: options)
        storeOptions.isReadOnly = readOnly
        return try XMLBackend().openStore(url, model: model, options: storeOptions)
    }

    static func note(_ id: ObjectID, _ title: String, words: Int64? = nil, folder: ObjectID? = nil, version: Int64 = 0)
        -> Snapshot
    {
        Snapshot(
            objectID: id, version: version, attributes: [.string(title), words.map { .integer($0) } ?? .null],
            relationships: [.toOne(folder)])
    }

    static func folder(_ id: ObjectID, _ name: String, notes: [ObjectID] = []) -> Snapshot {
        Snapshot(objectID: id, version: 0, attributes: [.string(name)], relationships: [.toMany(notes)])
    }

    /// Inserts `count` notes titled `n0`, `n1`, ... one save each; returns their IDs.
    @discardableResult
    static func insertNotes(_ store: XMLStore, _ count: Int) throws -> [ObjectID] {
        let ids = try store.obtainPermanentIDs(for: "Note", count: count)
        for (i, id) in ids.enumerated() { try store.save(SaveRequest(inserts: [note(id, "n\(i)")])) }
        return ids
    }

    static func text(_ url: StoreURL) throws -> String { try String(contentsOfFile: url.location, encoding: .utf8) }

    @Test func eachSaveAppendsOneTransactionKeptInTheFile() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try Self.open(dir.url())
        defer { try? store.close() }
        #expect(store.recordsHistory)
        #expect(try store.lastHistoryToken() == nil)
        #expect(!(try Self.text(dir.url())).contains("<_history"), "a store with no history writes none")
        let ids = try store.obtainPermanentIDs(for: "Note", count: 2)
        try store.save(
            SaveRequest(
                inserts: [Self.note(ids[0], "a & <b>"), Self.note(ids[1], "\u{1}")], transactionAuthor: "importer",
                contextName: "background"))
        try store.save(SaveRequest())
        try store.save(SaveRequest(metadataChanges: ["k": "v"]))

        let history = try store.fetchHistory(HistoryRequest())
        #expect(history.map(\.token.sequence) == [1])
        #expect(history.first?.author == "importer")
        #expect(history.first?.contextName == "background")
        #expect(history.first?.changes == ids.map { HistoryChange(kind: .insert, objectID: $0) })

        let lines = try Self.text(dir.url()).split(separator: "\n").map(String.init)
        let start = try #require(lines.firstIndex { $0.hasPrefix("<_history") })
        #expect(lines[start] == "<_history prunedThrough=\"0\">")
        #expect(lines[start + 1].hasPrefix("<_transaction sequence=\"1\" timestamp=\""))
        #expect(lines[start + 1].hasSuffix(" author=\"importer\" context=\"background\">"))
        #expect(
            Array(lines[(start + 2)...]) == [
                "<_insert entity=\"Note\" pk=\"\(ids[0].permanentKey)\"/>",
                "<_insert entity=\"Note\" pk=\"\(ids[1].permanentKey)\"/>", "</_transaction>", "</_history>",
                "</strata-store>",
            ])
        let reopened = try Self.open(dir.url(), readOnly: true)
        defer { try? reopened.close() }
        #expect(try reopened.fetchHistory(HistoryRequest()) == history)
    }

    @Test func updatesRecordOldAndNewValuesAndDeletesTheirTombstonesAcrossReopening() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        var store = try Self.open(dir.url())
        let folders = try store.obtainPermanentIDs(for: "Folder", count: 2)
        let notes = try store.obtainPermanentIDs(for: "Note", count: 2)
        try store.save(
            SaveRequest(inserts: [
                Self.folder(folders[0], "inbox", notes: [notes[0]]), Self.folder(folders[1], "archive"),
                Self.note(notes[0], "draft", words: 10, folder: folders[0]), Self.note(notes[1], "to\u{2}do"),
            ]))
        try store.save(
            SaveRequest(updates: [
                SaveRequest.Update(Self.note(notes[0], "final", folder: folders[1]), expectedVersion: 1),
                SaveRequest.Update(Self.folder(folders[0], "inbox"), expectedVersion: 1),
                SaveRequest.Update(Self.folder(folders[1], "archive", notes: [notes[0]]), expectedVersion: 1),
            ]))
        try store.save(SaveRequest(deletes: [SaveRequest.Delete(notes[1], expectedVersion: 1)]))
        let written = try store.fetchHistory(HistoryRequest())
        try store.close()

        store = try Self.open(dir.url())
        defer { try? store.close() }
        let history = try store.fetchHistory(HistoryRequest())
        #expect(history == written)
        #expect(history.map(\.token.sequence) == [1, 2, 3])
        let update = history[1].changes
        #expect(
            update[0].properties == [
                PropertyChange(
                    name: "title", oldValue: .attribute(.string("draft")), newValue: .attribute(.string("final"))),
                PropertyChange(name: "words", oldValue: .attribute(.integer(10)), newValue: .attribute(.null)),
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
            history[2].changes == [
                HistoryChange(kind: .delete, objectID: notes[1], tombstone: ["title": .string("to\u{2}do")])
            ])
        // Sequences go on after reopening.
        try Self.insertNotes(store, 1)
        #expect(try store.lastHistoryToken()?.sequence == 4)
    }

    @Test func aPreviousStateAtTheExpectedVersionIsUsedInsteadOfTheStoredObject() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try Self.open(dir.url())
        defer { try? store.close() }
        let ids = try Self.insertNotes(store, 1)
        try store.save(
            SaveRequest(updates: [
                SaveRequest.Update(
                    Self.note(ids[0], "new"), expectedVersion: 1, previous: Self.note(ids[0], "given", version: 1))
            ]))
        try store.save(
            SaveRequest(updates: [
                SaveRequest.Update(
                    Self.note(ids[0], "newer"), expectedVersion: 2, previous: Self.note(ids[0], "stale", version: 1))
            ]))
        let history = try store.fetchHistory(HistoryRequest())
        #expect(history[1].changes[0].properties.first?.oldValue == .attribute(.string("given")))
        #expect(history[2].changes[0].properties.first?.oldValue == .attribute(.string("new")))
    }

    @Test func aFailedSaveRecordsNothing() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try Self.open(dir.url())
        defer { try? store.close() }
        let ids = try Self.insertNotes(store, 1)
        let folders = try store.obtainPermanentIDs(for: "Folder", count: 2)
        try store.save(SaveRequest(inserts: [Self.folder(folders[0], "inbox")]))
        let before = try Self.text(dir.url())

        let conflict = #expect(throws: StrataError.self) {
            try store.save(SaveRequest(updates: [SaveRequest.Update(Self.note(ids[0], "x"), expectedVersion: 7)]))
        }
        #expect(conflict?.code == .conflict)
        let duplicate = #expect(throws: StrataError.self) {
            try store.save(SaveRequest(inserts: [Self.folder(folders[1], "inbox")]))
        }
        #expect(duplicate?.code == .uniqueConstraint)
        // A save interrupted before its rename leaves the file, history included, as it was.
        store.setBeforeRenameHook { throw SimulatedCrash() }
        #expect(throws: SimulatedCrash.self) { try store.save(SaveRequest(inserts: [Self.folder(folders[1], "x")])) }
        store.setBeforeRenameHook(nil)

        #expect(try Self.text(dir.url()) == before)
        #expect(try store.lastHistoryToken()?.sequence == 2)
        try store.save(SaveRequest(inserts: [Self.folder(folders[1], "archive")]))
        #expect(try store.fetchHistory(HistoryRequest()).map(\.token.sequence) == [1, 2, 3])
    }

    @Test func filtersAndLimitsApplyToTheTransactionsReturned() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try Self.open(dir.url())
        defer { try? store.close() }
        let folders = try store.obtainPermanentIDs(for: "Folder", count: 3)
        let notes = try store.obtainPermanentIDs(for: "Note", count: 3)
        for i in 0..<3 {
            try store.save(
                SaveRequest(inserts: [Self.folder(folders[i], "f\(i)")], transactionAuthor: i == 1 ? "sync" : "app"))
            try store.save(SaveRequest(inserts: [Self.note(notes[i], "n\(i)")], transactionAuthor: "app"))
        }
        #expect(try store.fetchHistory(HistoryRequest(authors: ["sync"])).map(\.token.sequence) == [3])
        #expect(
            try store.fetchHistory(HistoryRequest(entityNames: ["Note"], limit: 2)).map(\.token.sequence) == [2, 4])
        let after = HistoryToken(storeIdentifier: store.identifier, sequence: 4)
        #expect(try store.fetchHistory(HistoryRequest(after: after)).map(\.token.sequence) == [5, 6])
        let foreign = #expect(throws: StrataError.self) {
            try store.fetchHistory(HistoryRequest(after: HistoryToken(storeIdentifier: "other", sequence: 1)))
        }
        #expect(foreign?.code == .invalidRequest)
    }

    @Test func twoStoresOnOneFileSeeEachOthersSavesAndShareOneSequence() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let first = try Self.open(dir.url())
        defer { try? first.close() }
        let second = try Self.open(dir.url())
        defer { try? second.close() }
        let ids = try first.obtainPermanentIDs(for: "Note", count: 4)
        try first.save(SaveRequest(inserts: [Self.note(ids[0], "a")], transactionAuthor: "first"))
        // The second store notices the replaced file, loads it and so may save after it.
        #expect(try second.lastHistoryToken()?.sequence == 1)
        #expect(try second.fetch(FetchRequest(entityName: "Note")).snapshots().count == 1)
        try second.save(SaveRequest(inserts: [Self.note(ids[1], "b")], transactionAuthor: "second"))
        #expect(try first.lastHistoryToken()?.sequence == 2)
        try first.save(SaveRequest(inserts: [Self.note(ids[2], "c")], transactionAuthor: "first"))
        #expect(try second.fetchHistory(HistoryRequest()).count == 3)
        try second.save(SaveRequest(inserts: [Self.note(ids[3], "d")], transactionAuthor: "second"))
        for store in [first, second] {
            let history = try store.fetchHistory(HistoryRequest())
            #expect(history.map(\.token.sequence) == [1, 2, 3, 4])
            #expect(history.map(\.author) == ["first", "second", "first", "second"])
        }
    }

    @Test func pruningThroughATokenBeforeADateAndKeepingTheLast() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try Self.open(dir.url())
        defer { try? store.close() }
        try Self.insertNotes(store, 6)
        let id = store.identifier
        func token(_ sequence: Int64) -> HistoryToken { HistoryToken(storeIdentifier: id, sequence: sequence) }

        #expect(try store.pruneHistory(.through(token(2))) == 2)
        #expect(try Self.text(dir.url()).contains("<_history prunedThrough=\"2\">"))
        #expect(try store.fetchHistory(HistoryRequest()).map(\.token.sequence) == [3, 4, 5, 6])
        let expired = #expect(throws: StrataError.self) { try store.fetchHistory(HistoryRequest(after: token(1))) }
        #expect(expired?.code == .historyExpired)

        #expect(try store.pruneHistory(.keepingLast(3)) == 1)
        #expect(try store.pruneHistory(.before(Date().addingTimeInterval(-3_600))) == 0)
        #expect(try store.pruneHistory(.before(Date().addingTimeInterval(1))) == 3)
        #expect(try store.fetchHistory(HistoryRequest()).isEmpty)
        #expect(try store.lastHistoryToken() == token(6))
        try Self.insertNotes(store, 1)
        #expect(try store.fetchHistory(HistoryRequest(after: token(6))).map(\.token.sequence) == [7])
        let foreign = #expect(throws: StrataError.self) {
            try store.pruneHistory(.through(HistoryToken(storeIdentifier: "other", sequence: 1)))
        }
        #expect(foreign?.code == .invalidRequest)
    }

    @Test func savesPruneBeyondTheKeptTransactionsAndTheFileStopsGrowing() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try Self.open(dir.url(), [HistoryOptions.keepTransactionsOption: "5"])
        defer { try? store.close() }
        let ids = try store.obtainPermanentIDs(for: "Note", count: 1)
        try store.save(SaveRequest(inserts: [Self.note(ids[0], "n")]))
        var sizes: [Int] = []
        for version in 1...20 {
            try store.save(
                SaveRequest(updates: [
                    SaveRequest.Update(
                        Self.note(ids[0], "n", words: Int64(version % 2)), expectedVersion: Int64(version))
                ]))
            sizes.append(try Self.text(dir.url()).utf8.count)
        }
        #expect(try store.fetchHistory(HistoryRequest()).map(\.token.sequence) == Array(17...21))
        #expect(try Self.text(dir.url()).components(separatedBy: "<_transaction ").count - 1 == 5)
        // Once five transactions are kept, each save replaces one: the file keeps its size but
        // for the digits of the growing numbers.
        #expect(abs(sizes[19] - sizes[9]) <= 30, "\(sizes)")
        #expect(sizes[4] > sizes[0])
        let expired = #expect(throws: StrataError.self) {
            try store.fetchHistory(HistoryRequest(after: HistoryToken(storeIdentifier: store.identifier, sequence: 1)))
        }
        #expect(expired?.code == .historyExpired)
    }

    @Test func withoutLimitsAnXMLStoreKeepsTheDefaultNumberOfTransactions() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try Self.open(dir.url())
        defer { try? store.close() }
        #expect(store.options.history.keepTransactions == XMLStoreOptions.defaultHistoryKeepTransactions)
        let days = try Self.open(dir.url(), [HistoryOptions.keepDaysOption: "3"])
        defer { try? days.close() }
        #expect(days.options.history.keepTransactions == nil)
    }

    @Test func savesPruneTransactionsOlderThanTheKeptDays() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        var store = try Self.open(dir.url())
        try Self.insertNotes(store, 2)
        try store.close()
        // Makes the first transaction eight days old by editing the file.
        let old = Date().addingTimeInterval(-8 * 86_400).timeIntervalSinceReferenceDate.description
        var text = try Self.text(dir.url())
        let range = try #require(text.range(of: #"sequence="1" timestamp="[^"]*""#, options: .regularExpression))
        text.replaceSubrange(range, with: "sequence=\"1\" timestamp=\"\(old)\"")
        try text.write(toFile: dir.url().location, atomically: true, encoding: .utf8)

        store = try Self.open(dir.url(), [HistoryOptions.keepDaysOption: "7"])
        defer { try? store.close() }
        try Self.insertNotes(store, 1)
        #expect(try store.fetchHistory(HistoryRequest()).map(\.token.sequence) == [2, 3])
    }

    @Test func historyOffRecordsNothing() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try Self.open(dir.url(), [HistoryOptions.enabledOption: "off"])
        defer { try? store.close() }
        #expect(!store.recordsHistory)
        try Self.insertNotes(store, 2)
        #expect(try store.lastHistoryToken() == nil)
        #expect(try store.fetchHistory(HistoryRequest()).isEmpty)
        #expect(!(try Self.text(dir.url())).contains("<_history"))
        let bad = #expect(throws: StrataError.self) {
            try Self.open(dir.url(), [HistoryOptions.keepTransactionsOption: "none"])
        }
        #expect(bad?.code == .invalidOption)
    }

    @Test func aDamagedTransactionIsATypedErrorAndObjectsStayReadable() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        var store = try Self.open(dir.url())
        let ids = try Self.insertNotes(store, 3)
        try store.close()
        var text = try Self.text(dir.url())
        let range = try #require(text.range(of: "<_insert entity=\"Note\" pk=\"\(ids[1].permanentKey)\"/>"))
        text.replaceSubrange(range, with: "<_insert entity=\"Note\" pk=\"two\"/>")
        try text.write(toFile: dir.url().location, atomically: true, encoding: .utf8)

        store = try Self.open(dir.url())
        defer { try? store.close() }
        #expect(try store.fetch(FetchRequest(entityName: "Note")).snapshots().count == 3)
        let error = #expect(throws: StrataError.self) { try store.fetchHistory(HistoryRequest()) }
        #expect(error?.code == .storeCorrupt)
        #expect(error?.location["token"] == "\(store.identifier):2")
        let after = HistoryToken(storeIdentifier: store.identifier, sequence: 2)
        #expect(try store.fetchHistory(HistoryRequest(after: after)).map(\.token.sequence) == [3])
        // Saves keep the damaged transaction as it is; pruning through it removes it.
        try Self.insertNotes(store, 1)
        #expect(try Self.text(dir.url()).contains("pk=\"two\""))
        #expect(try store.pruneHistory(.through(after)) == 2)
        #expect(try store.fetchHistory(HistoryRequest()).map(\.token.sequence) == [3, 4])
    }

    @Test func aTransactionWhoseTimeIsDamagedStopsPruningByDateButNotSaves() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        var store = try Self.open(dir.url())
        try Self.insertNotes(store, 2)
        try store.close()
        var text = try Self.text(dir.url())
        let range = try #require(text.range(of: #"sequence="1" timestamp="[^"]*""#, options: .regularExpression))
        text.replaceSubrange(range, with: "sequence=\"1\" timestamp=\"yesterday\"")
        try text.write(toFile: dir.url().location, atomically: true, encoding: .utf8)

        store = try Self.open(dir.url(), [HistoryOptions.keepDaysOption: "7"])
        defer { try? store.close() }
        try Self.insertNotes(store, 1)
        let first = HistoryToken(storeIdentifier: store.identifier, sequence: 1)
        #expect(try store.fetchHistory(HistoryRequest(after: first)).map(\.token.sequence) == [2, 3])
        let error = #expect(throws: StrataError.self) {
            try store.pruneHistory(.before(Date().addingTimeInterval(60)))
        }
        #expect(error?.code == .storeCorrupt)
        #expect(error?.location["token"] == first.description)
        #expect(try Self.text(dir.url()).contains("timestamp=\"yesterday\""), "a failed prune writes nothing")
    }

    @Test func aBrokenHistoryStructureIsRefusedWithItsLine() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        var store = try Self.open(dir.url())
        try Self.insertNotes(store, 2)
        try store.close()
        let text = try Self.text(dir.url())
        try text.replacingOccurrences(of: "sequence=\"2\"", with: "sequence=\"1\"").write(
            toFile: dir.url().location, atomically: true, encoding: .utf8)
        let error = #expect(throws: StrataError.self) { store = try Self.open(dir.url()) }
        #expect(error?.code == .storeCorrupt)
        #expect(error?.message.contains("sequences must ascend") == true)
        #expect(error?.location["line"] != nil)
    }

    @Test func aFileWrittenBeforeHistoryOpensAndGainsItsHistoryAtTheNextSave() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        var store = try Self.open(dir.url(), [HistoryOptions.enabledOption: "off"])
        try Self.insertNotes(store, 1)
        try store.close()
        store = try Self.open(dir.url(), readOnly: true)
        #expect(try store.fetchHistory(HistoryRequest()).isEmpty)
        try store.close()
        store = try Self.open(dir.url())
        defer { try? store.close() }
        try Self.insertNotes(store, 1)
        #expect(try store.fetchHistory(HistoryRequest()).map(\.token.sequence) == [1])
    }

    @Test func xmllintAcceptsAFileWithHistory() throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanUp() }
        let store = try Self.open(dir.url())
        let ids = try Self.insertNotes(store, 2)
        try store.save(
            SaveRequest(
                deletes: [SaveRequest.Delete(ids[0], expectedVersion: 1)], transactionAuthor: "a \"quoted\" <one>"))
        try store.close()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/xmllint")
        process.arguments = ["--noout", dir.file("store.xml")]
        let errors = Pipe.closedOnExec()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(message)")
    }
}
