import Foundation
import StrataCore

extension ConformanceRun {
    /// Opens the run's store as a ``HistoryRecording`` store that records history, or ends the
    /// check as not applicable.
    func openRecording(options: StoreOptions? = nil) throws -> any HistoryRecording {
        let store = try capability((any HistoryRecording).self, of: try open(options: options))
        guard store.recordsHistory else { throw ConformanceNotApplicable() }
        return store
    }

    /// Ends the check as not applicable unless the run's backend records history: opens its
    /// store once with the subject's options, then closes it. For checks that open with
    /// history options, which a backend without history refuses as unknown.
    func requireHistory() throws {
        let store = try open()
        defer { try? store.close() }
        _ = try capability((any HistoryRecording).self, of: store)
    }

    /// Every transaction of `store`'s history.
    func history(_ store: any HistoryRecording, after: HistoryToken? = nil) throws -> [HistoryTransaction] {
        try store.fetchHistory(HistoryRequest(after: after))
    }

    /// A new department named `name`.
    func department(_ store: any PersistentStore, _ name: String) throws -> Snapshot {
        try snapshot(try ids(store, "Department", 1)[0], ["name": .string(name)])
    }
}

extension ConformanceKit {
    /// Checks for stores adopting ``HistoryRecording``; they do not apply to other stores.
    static let historyChecks: [ConformanceCheck] = [
        ConformanceCheck("eachSaveRecordsOneTransactionWithItsAuthor") { run in
            let store = try run.openRecording()
            try run.expect(try store.lastHistoryToken() == nil, "a new store has a last history token")
            let department = try run.department(store, "Research")
            let employee = try run.employee(store, key: try run.ids(store, "Employee", 1)[0].permanentKey, "Ada")
            let started = Date()
            try store.save(
                SaveRequest(inserts: [department, employee], transactionAuthor: "importer", contextName: "background"))
            let transactions = try run.history(store)
            try run.expectEqual(transactions.count, 1, "transactions after one save")
            let transaction = transactions[0]
            try run.expectEqual(
                transaction.token, HistoryToken(storeIdentifier: store.identifier, sequence: 1), "the first token")
            try run.expectEqual(try store.lastHistoryToken(), transaction.token, "the last history token")
            try run.expectEqual(transaction.author, "importer", "the transaction's author")
            try run.expectEqual(transaction.contextName, "background", "the transaction's context name")
            try run.expect(
                abs(transaction.timestamp.timeIntervalSince(started)) < 60,
                "the transaction's timestamp \(transaction.timestamp) is not the time of the save (\(started))")
            try run.expectEqual(
                transaction.changes,
                [
                    HistoryChange(kind: .insert, objectID: department.objectID),
                    HistoryChange(kind: .insert, objectID: employee.objectID),
                ], "the changes of an insert")
        },
        ConformanceCheck("aFailedSaveRecordsNothing") { run in
            let store = try run.openRecording()
            let project = try run.snapshot(try run.ids(store, "Project", 1)[0], ["title": .string("Apollo")])
            try store.save(SaveRequest(inserts: [project]))
            // A conflict: the expected version is stale.
            var renamed = project
            renamed.attributes[run.entity("Project").attributeIndex(named: "title")!] = .string("Gemini")
            _ = try run.expectError(.conflict, "a save with a stale version") {
                try store.save(SaveRequest(updates: [.init(renamed, expectedVersion: 7)]))
            }
            // A unique constraint: a second project titled Apollo.
            let twin = try run.snapshot(try run.ids(store, "Project", 1)[0], ["title": .string("Apollo")])
            _ = try? store.save(SaveRequest(inserts: [twin]))
            let saved = try run.all(store, "Project").count
            let transactions = try run.history(store)
            try run.expectEqual(transactions.count, saved == 1 ? 1 : 2, "transactions after one save and failed ones")
            try run.expectEqual(
                try store.lastHistoryToken()?.sequence, Int64(transactions.count), "the last token's sequence")
            // Metadata alone is not history.
            try store.save(SaveRequest(metadataChanges: ["note": "x"]))
            try run.expectEqual(try run.history(store).count, transactions.count, "transactions after a metadata save")
        },
        ConformanceCheck("updatesRecordChangedPropertiesWithOldAndNewValues") { run in
            let store = try run.openRecording()
            let research = try run.department(store, "Research")
            let sales = try run.department(store, "Sales")
            let id = try run.ids(store, "Employee", 1)[0]
            let ada = try run.employee(store, key: id.permanentKey, "Ada", department: research.objectID)
            var researchWithAda = research
            let employees = run.entity("Department").relationshipIndex(named: "employees")!
            researchWithAda.relationships[employees] = .toMany([id])
            try store.save(SaveRequest(inserts: [researchWithAda, sales, ada]))
            let first = try store.lastHistoryToken()

            // Rename Ada and move her to Sales, without telling the store the previous state.
            var moved = ada
            moved.attributes[run.entity("Employee").attributeIndex(named: "name")!] = .string("Ada L.")
            moved.relationships[run.entity("Employee").relationshipIndex(named: "department")!] = .toOne(
                sales.objectID)
            var salesWithAda = sales
            salesWithAda.relationships[employees] = .toMany([id])
            try store.save(
                SaveRequest(updates: [
                    .init(moved, expectedVersion: 1), .init(research, expectedVersion: 1),
                    .init(salesWithAda, expectedVersion: 1),
                ]))
            let update = try run.history(store, after: first)
            try run.expectEqual(update.count, 1, "transactions after the update")
            let byID = Dictionary(uniqueKeysWithValues: update[0].changes.map { ($0.objectID, $0) })
            try run.expectEqual(
                byID[id]?.properties,
                [
                    PropertyChange(
                        name: "name", oldValue: .attribute(.string("Ada")), newValue: .attribute(.string("Ada L."))),
                    PropertyChange(
                        name: "department", oldValue: .relationship(.toOne(research.objectID)),
                        newValue: .relationship(.toOne(sales.objectID))),
                ], "the employee's changed properties")
            try run.expectEqual(
                byID[research.objectID]?.properties,
                [
                    PropertyChange(
                        name: "employees", oldValue: .relationship(.toMany([id])), newValue: .relationship(.toMany([]))
                    )
                ], "the old department's changed properties")
            try run.expectEqual(byID[sales.objectID]?.kind, .update, "the new department's change")

            // A previous state at another version is ignored: the store uses what it holds.
            let second = try store.lastHistoryToken()
            var bogus = moved
            bogus.attributes[run.entity("Employee").attributeIndex(named: "name")!] = .string("Somebody else")
            bogus.version = 1
            var again = moved
            again.attributes[run.entity("Employee").attributeIndex(named: "height")!] = .double(1.8)
            try store.save(SaveRequest(updates: [.init(again, expectedVersion: 2, previous: bogus)]))
            let third = try run.history(store, after: second)
            try run.expectEqual(
                third.first?.changes.first?.properties,
                [
                    PropertyChange(
                        name: "height", oldValue: .attribute(.double(1.7)), newValue: .attribute(.double(1.8)))
                ],
                "the properties of an update whose previous state has another version")
        },
        ConformanceCheck("deletesKeepTheValuesMarkedToSurvive") { run in
            let store = try run.openRecording()
            let project = try run.snapshot(
                try run.ids(store, "Project", 1)[0],
                ["title": .string("Apollo"), "deadline": .date(Date(timeIntervalSince1970: 0))])
            let employee = try run.employee(store, key: try run.ids(store, "Employee", 1)[0].permanentKey, "Ada")
            try store.save(SaveRequest(inserts: [project, employee]))
            let before = try store.lastHistoryToken()
            try store.save(
                SaveRequest(deletes: [
                    .init(project.objectID, expectedVersion: 1), .init(employee.objectID, expectedVersion: 1),
                ]))
            let changes = try run.history(store, after: before).first?.changes ?? []
            try run.expectEqual(
                changes,
                [
                    HistoryChange(kind: .delete, objectID: project.objectID, tombstone: ["title": .string("Apollo")]),
                    HistoryChange(kind: .delete, objectID: employee.objectID),
                ], "the changes of a delete")
        },
        ConformanceCheck("historyFiltersByTokenAuthorEntityAndLimit") { run in
            let store = try run.openRecording()
            for (index, author) in ["a", "b", "a", "c"].enumerated() {
                let inserts =
                    index % 2 == 0
                    ? [try run.department(store, "D\(index)")]
                    : [try run.employee(store, key: try run.ids(store, "Employee", 1)[0].permanentKey, "E\(index)")]
                try store.save(SaveRequest(inserts: inserts, transactionAuthor: author))
            }
            let all = try run.history(store)
            try run.expectEqual(all.map(\.token.sequence), [1, 2, 3, 4], "the sequences of four saves")
            try run.expectEqual(
                try run.history(store, after: all[1].token).map(\.token.sequence), [3, 4], "the sequences after 2")
            try run.expectEqual(
                try store.fetchHistory(HistoryRequest(authors: ["a"])).map(\.token.sequence), [1, 3],
                "the sequences by author a")
            try run.expectEqual(
                try store.fetchHistory(HistoryRequest(entityNames: ["Employee"])).map(\.token.sequence), [2, 4],
                "the sequences with employees")
            try run.expectEqual(
                try store.fetchHistory(HistoryRequest(authors: ["a", "c"], limit: 2)).map(\.token.sequence), [1, 3],
                "the first two sequences by a or c")
            try run.expectEqual(
                try store.fetchHistory(HistoryRequest(after: all[3].token)).count, 0, "transactions after the last")
            _ = try run.expectError(.invalidRequest, "a token of another store") {
                _ = try store.fetchHistory(
                    HistoryRequest(after: HistoryToken(storeIdentifier: "elsewhere", sequence: 1)))
            }
            _ = try run.expectError(.invalidRequest, "a negative limit") {
                _ = try store.fetchHistory(HistoryRequest(limit: -1))
            }
        },
        ConformanceCheck("pruningExpiresOlderTokensAndNeverReusesSequences") { run in
            let store = try run.openRecording()
            for index in 0..<5 { try store.save(SaveRequest(inserts: [try run.department(store, "D\(index)")])) }
            let all = try run.history(store)
            try run.expectEqual(try store.pruneHistory(.through(all[1].token)), 2, "transactions pruned through 2")
            try run.expectEqual(try run.history(store).map(\.token.sequence), [3, 4, 5], "the sequences kept")
            try run.expectEqual(
                try run.history(store, after: all[1].token).map(\.token.sequence), [3, 4, 5],
                "the sequences after the last pruned token")
            let expired = try run.expectError(.historyExpired, "reading after a pruned token") {
                _ = try run.history(store, after: all[0].token)
            }
            try run.expectEqual(expired.location["token"], all[0].token.description, "the expired token named")
            try run.expectEqual(try store.pruneHistory(.keepingLast(1)), 2, "transactions pruned keeping the last")
            try run.expectEqual(try store.pruneHistory(.before(Date().addingTimeInterval(60))), 1, "pruned before now")
            try run.expectEqual(try run.history(store).count, 0, "transactions after pruning all")
            try run.expectEqual(try store.lastHistoryToken(), all[4].token, "the last token after pruning all")
            try store.save(SaveRequest(inserts: [try run.department(store, "D5")]))
            try run.expectEqual(try run.history(store).map(\.token.sequence), [6], "the sequence after pruning")
        },
        ConformanceCheck("automaticPruningKeepsTheNewestTransactions") { run in
            try run.requireHistory()
            var options = run.subject.options
            options[HistoryOptions.keepTransactionsOption] = "2"
            let store = try run.openRecording(options: options)
            for index in 0..<5 { try store.save(SaveRequest(inserts: [try run.department(store, "D\(index)")])) }
            try run.expectEqual(try run.history(store).map(\.token.sequence), [4, 5], "the sequences kept")
            _ = try run.expectError(.historyExpired, "reading after an automatically pruned token") {
                _ = try run.history(store, after: HistoryToken(storeIdentifier: store.identifier, sequence: 1))
            }
        },
        ConformanceCheck("historyOffRecordsNothing") { run in
            try run.requireHistory()
            var options = run.subject.options
            options[HistoryOptions.enabledOption] = "off"
            let opened = try run.open(options: options)
            guard let store = opened.capability((any HistoryRecording).self) else { throw ConformanceNotApplicable() }
            try run.expect(!store.recordsHistory, "a store opened with history=off records history")
            try store.save(SaveRequest(inserts: [try run.department(store, "Quiet")]))
            try run.expectEqual(try store.fetchHistory(HistoryRequest()).count, 0, "transactions with history off")
        },
        ConformanceCheck("tokensSurviveReopening", requires: .persistent) { run in
            let store = try run.openRecording()
            for index in 0..<3 { try store.save(SaveRequest(inserts: [try run.department(store, "D\(index)")])) }
            let last = try store.lastHistoryToken()
            try store.close()
            let reopened = try run.openRecording()
            try run.expectEqual(try reopened.lastHistoryToken(), last, "the last token after reopening")
            try run.expectEqual(try run.history(reopened).count, 3, "transactions after reopening")
            try reopened.save(SaveRequest(inserts: [try run.department(reopened, "D3")]))
            try run.expectEqual(try reopened.lastHistoryToken()?.sequence, 4, "the sequence of the next save")
        },
        ConformanceCheck("batchOperationsRecordTheirChanges") { run in
            let store = try run.openRecording()
            let batch = try run.capability((any BatchOperating).self, of: store)
            let a = try run.department(store, "A")
            let b = try run.department(store, "B")
            try store.save(SaveRequest(inserts: [a, b]))
            let before = try store.lastHistoryToken()
            _ = try batch.batchUpdate(
                entityName: "Department", predicate: nil, values: ["budget": .decimal(Decimal(string: "12.5")!)])
            let named = try ObjectPredicate(format: "name == %@", "A")
            _ = try batch.batchDelete(entityName: "Department", predicate: named)
            let transactions = try run.history(store, after: before)
            try run.expectEqual(transactions.count, 2, "transactions of a batch update and a batch delete")
            try run.expectEqual(
                transactions.first?.changes.map(\.kind), [.update, .update], "the changes of the batch update")
            try run.expectEqual(
                transactions.first?.changes.first?.properties,
                [
                    PropertyChange(
                        name: "budget", oldValue: .attribute(.null),
                        newValue: .attribute(.decimal(Decimal(string: "12.5")!))
                    )
                ], "the properties of the batch update")
            try run.expectEqual(
                transactions.last?.changes.filter { $0.kind == .delete }.map(\.objectID), [a.objectID],
                "the deletes of the batch delete")
        },
    ]
}
