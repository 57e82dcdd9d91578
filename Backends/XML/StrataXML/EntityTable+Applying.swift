extension EntityTable {
    /// The table after deleting `deleted`, replacing rows by `updated` and adding `inserted`
    /// (none of whose keys is present), in one merge pass: O(n + k log k).
    ///
    /// Rows stay rows (the saved rows are stored as they are); columns stay columns, their
    /// untouched runs copied in bulk and only the saved rows converted.
    func applying(deleted: Set<Int64>, updated: [Int64: StoredRow], inserted: [(key: Int64, row: StoredRow)])
        -> EntityTable
    {
        var additions = inserted
        if !zip(additions, additions.dropFirst()).allSatisfy({ $0.key < $1.key }) { additions.sort { $0.key < $1.key } }
        switch storage {
        case .rows(let rows):
            return Self.applying(deleted: deleted, updated: updated, additions: additions, keys: keys, rows: rows)
        case .columns(let columns):
            return Self.applying(deleted: deleted, updated: updated, additions: additions, keys: keys, columns: columns)
        }
    }

    /// ``applying(deleted:updated:inserted:)`` for rows: the saved rows are stored as they are.
    private static func applying(
        deleted: Set<Int64>, updated: [Int64: StoredRow], additions: [(key: Int64, row: StoredRow)], keys: [Int64],
        rows: [StoredRow]
    ) -> EntityTable {
        var keys = keys
        var rows = rows
        if deleted.isEmpty, additions.first.map({ $0.key > (keys.last ?? .min) }) ?? true {
            // The common cases: only updates, or new keys after every stored one.
            for (key, row) in updated {
                if let i = index(of: key, in: keys) { rows[i] = row }
            }
            keys.reserveCapacity(keys.count + additions.count)
            rows.reserveCapacity(rows.count + additions.count)
            for (key, row) in additions {
                keys.append(key)
                rows.append(row)
            }
            return EntityTable(keys: keys, rows: rows)
        }
        var resultKeys: [Int64] = []
        var resultRows: [StoredRow] = []
        resultKeys.reserveCapacity(keys.count - deleted.count + additions.count)
        resultRows.reserveCapacity(keys.count - deleted.count + additions.count)
        var a = 0
        for (i, key) in keys.enumerated() {
            while a < additions.count && additions[a].key < key {
                resultKeys.append(additions[a].key)
                resultRows.append(additions[a].row)
                a += 1
            }
            if deleted.contains(key) { continue }
            resultKeys.append(key)
            resultRows.append(updated[key] ?? rows[i])
        }
        while a < additions.count {
            resultKeys.append(additions[a].key)
            resultRows.append(additions[a].row)
            a += 1
        }
        return EntityTable(keys: resultKeys, rows: resultRows)
    }

    /// ``applying(deleted:updated:inserted:)`` for columns: the runs of untouched rows are
    /// copied in bulk, the saved rows converted.
    private static func applying(
        deleted: Set<Int64>, updated: [Int64: StoredRow], additions: [(key: Int64, row: StoredRow)], keys: [Int64],
        columns: EntityColumns
    ) -> EntityTable {
        if deleted.isEmpty && updated.isEmpty && (additions.first.map { $0.key > (keys.last ?? .min) } ?? true) {
            // A save that only inserts, after every stored key.
            var keys = keys
            var columns = columns
            keys.append(contentsOf: additions.lazy.map(\.key))
            additions.withUnsafeBufferPointer { columns.append($0) }
            return EntityTable(keys: keys, columns: columns)
        }

        // Every change as a position among the current rows, in order; replaced rows are kept
        // in `replacements`, so an edit is two words.
        enum Change {
            /// Replace the row at the position by `replacements[i]`.
            case replace(Int)
            /// Delete the row at the position.
            case delete
        }
        var replacements: [StoredRow] = []
        replacements.reserveCapacity(updated.count)
        var changes: [(position: Int, change: Change)] = []
        changes.reserveCapacity(updated.count + deleted.count)
        for key in deleted { if let i = index(of: key, in: keys) { changes.append((i, .delete)) } }
        for (key, row) in updated where !deleted.contains(key) {
            if let i = index(of: key, in: keys) {
                changes.append((i, .replace(replacements.count)))
                replacements.append(row)
            }
        }
        changes.sort { $0.position < $1.position }

        var resultKeys: [Int64] = []
        resultKeys.reserveCapacity(keys.count + additions.count)
        var result = EntityColumns(shapeOf: columns)
        result.reserveCapacity(keys.count + additions.count)
        var next = 0
        var a = 0
        additions.withUnsafeBufferPointer { additions in
            /// Appends the additions whose keys come before `key` (all of them for `nil`).
            func add(before key: Int64?) {
                let first = a
                while a < additions.count && key.map({ additions[a].key < $0 }) ?? true { a += 1 }
                guard a > first else { return }
                let run = UnsafeBufferPointer(rebasing: additions[first..<a])
                resultKeys.append(contentsOf: run.lazy.map(\.key))
                result.append(run)
            }
            /// Copies the current rows up to `position`, with the additions among them.
            func copy(upTo position: Int) {
                while next < position {
                    add(before: keys[next])
                    // The current rows up to the next addition (or `position`), in bulk.
                    let stop =
                        a < additions.count
                        ? max(next + 1, min(position, insertionIndex(of: additions[a].key, in: keys))) : position
                    resultKeys.append(contentsOf: keys[next..<stop])
                    result.append(rowsOf: columns, next..<stop)
                    next = stop
                }
            }
            for (position, change) in changes {
                copy(upTo: position)
                add(before: keys[position])
                if case .replace(let r) = change {
                    resultKeys.append(keys[position])
                    result.append(replacements[r])
                }
                next = position + 1
            }
            copy(upTo: keys.count)
            add(before: nil)
        }
        return EntityTable(keys: resultKeys, columns: result)
    }
}
