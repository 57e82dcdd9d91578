import StrataCore

/// Checks a crash-test store's persistent history against its content: one transaction for the
/// save that created the graph and one per crash-test save, nothing pruned, and the last
/// transaction holding exactly the changes of the last save.
public enum TortureHistory {
    /// What is wrong with the history of the store `driver` loaded (empty when nothing is).
    ///
    /// - Parameters:
    ///   - history: the store, as a history recorder.
    ///   - driver: the store's graph, loaded (``TortureDriver/load(from:seed:)``).
    ///   - beforeLastSave: the state before the store's last save (unused when it holds none).
    public static func problems(
        _ history: any HistoryRecording, driver: TortureDriver, beforeLastSave: TortureState
    ) throws -> [String] {
        let state = driver.state
        let transactions = try history.fetchHistory(HistoryRequest())
        // The creating save, then saves 1...lastSave.
        let saves = state.lastSave + 1
        var problems: [String] = []
        if transactions.count != saves {
            problems.append("\(transactions.count) transactions for \(saves) committed saves")
        }
        let last = try history.lastHistoryToken()
        if last?.sequence != Int64(saves) {
            problems.append("the last token is \(last.map(\.description) ?? "none"), not sequence \(saves)")
        }
        if transactions.map(\.token.sequence)
            != Array(stride(from: Int64(1), through: Int64(transactions.count), by: 1))
        {
            problems.append("the sequences are \(transactions.map(\.token.sequence)), not 1 and on")
        }
        guard let transaction = transactions.last else { return problems }
        if state.lastSave == 0 {
            if transaction.changes.contains(where: { $0.kind != .insert }) {
                problems.append("the creating save's transaction holds \(transaction.changes.map(\.kind))")
            }
            return problems
        }
        return problems + lastSaveProblems(transaction, driver: driver, before: beforeLastSave)
    }

    /// How `transaction` differs from the changes of the last save of `driver`'s store.
    private static func lastSaveProblems(_ transaction: HistoryTransaction, driver: TortureDriver, before: TortureState)
        -> [String]
    {
        let state = driver.state
        let n = state.lastSave
        let operations = before.operations(forSave: n, seed: driver.seed)
        var inserted: Set<ObjectID> = []
        var updated: Set<ObjectID> = [driver.journal]
        var deletedCount = 0
        var newItems: [ObjectID: TortureItem] = [:]
        for operation in operations {
            switch operation {
            case .insert(let slot, _):
                if let key = driver.itemKey(slot: slot) { inserted.insert(key) }
            case .update(let slot, let item):
                if let key = driver.itemKey(slot: slot) {
                    updated.insert(key)
                    newItems[key] = item
                }
            case .delete: deletedCount += 1
            }
        }
        for group in before.groupsChanged(by: operations) { updated.insert(driver.groups[group]) }

        var problems: [String] = []
        let kinds = Dictionary(grouping: transaction.changes, by: \.kind)
        let recordedInserts = Set((kinds[.insert] ?? []).map(\.objectID))
        let recordedUpdates = Set((kinds[.update] ?? []).map(\.objectID))
        if recordedInserts != inserted {
            problems.append("save \(n) inserted \(inserted), history says \(recordedInserts)")
        }
        if recordedUpdates != updated {
            problems.append("save \(n) updated \(updated), history says \(recordedUpdates)")
        }
        if (kinds[.delete] ?? []).count != deletedCount {
            problems.append("save \(n) deleted \(deletedCount) items, history says \((kinds[.delete] ?? []).count)")
        }
        let journal = transaction.changes.first { $0.objectID == driver.journal }
        let expectedJournal = [
            PropertyChange(
                name: "lastSave", oldValue: .attribute(.integer(Int64(n - 1))), newValue: .attribute(.integer(Int64(n)))
            )
        ]
        if journal?.properties != expectedJournal {
            problems.append("save \(n)'s journal change is \(journal.map { "\($0.properties)" } ?? "missing")")
        }
        // Each updated item's recorded new values are the ones the save wrote.
        for change in kinds[.update] ?? [] {
            guard let item = newItems[change.objectID] else { continue }
            let written: [String: Value] = [
                "value": .integer(item.value), "label": .string(item.label),
                "payload": item.payload.map(Value.string) ?? .null,
            ]
            for property in change.properties {
                if let value = written[property.name], property.newValue != .attribute(value) {
                    problems.append(
                        "save \(n) set \(change.objectID).\(property.name); history says \(property.newValue)")
                }
            }
        }
        return problems
    }
}
