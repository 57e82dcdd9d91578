import CStrataLMDB
import StrataCore

extension LMDBStore {
    /// Applies `request` in one write transaction: all of it, or (on any error) none of it.
    ///
    /// Order inside the transaction: check every expected version (collecting every conflict;
    /// a deleted object is removed with its secondary entries as soon as its check passes, and
    /// a conflict aborts the transaction); remove the old secondary entries of updated objects;
    /// write the updated and inserted records; add their secondary entries, checking unique
    /// constraints against the final state (so swapping unique values between objects works);
    /// append the save's history transaction (when the store records history).
    /// When the map fills up, the transaction is aborted, the map grows and the save runs again.
    @discardableResult
    public func save(_ request: SaveRequest) throws -> SaveResult {
        try ensureOpen()
        if isReadOnly {
            throw StrataError(
                .readOnly, "the LMDB store at \(environment.path) is open read-only; the save was not applied",
                location: ["path": environment.path])
        }
        if request.isEmpty { return SaveResult() }
        let plan = try SavePlan(request: request, store: self)
        do {
            return try operationLog.timed(
                { try environment.write { txn in try apply(plan, request, txn) } },
                { _ in ("saved", request.loggedMetadata) })
        } catch {
            throw environment.translate(error, doing: "saving")
        }
    }

    private func apply(_ plan: SavePlan, _ request: SaveRequest, _ txn: LMDBTransaction) throws -> SaveResult {
        // 1. Optimistic locking: every conflict is collected and reported together. Each record
        // is found once: an updated object's stored values that its secondary entries are keyed
        // by are kept for step 2; a deleted object is checked with a cursor on its record and,
        // while no conflict has been found, deleted where the cursor stands, with its old
        // secondary entries. A conflict throws at the end of this step, and `write` aborts the
        // transaction: nothing of the save is written.
        var conflicts: [SaveConflict] = []
        let keepsUpdates = plan.updateLayouts.contains { !$0.secondaries.isEmpty }
        var oldUpdates: [IndexedValues?] = []
        if keepsUpdates { oldUpdates.reserveCapacity(request.updates.count) }
        // History needs the state before the save of the objects whose request has no usable
        // `previous`: decoded from the record each check reads anyway.
        let recording = recordsHistory
        var storedStates: [ObjectID: Snapshot] = [:]
        for (i, update) in request.updates.enumerated() {
            let layout = plan.updateLayouts[i]
            let pk = update.snapshot.objectID.primaryKey!
            var state: Snapshot?
            let keepsState = recording && update.previous?.version != update.expectedVersion
            let old = try check(
                pk, expected: update.expectedVersion, layout, txn, &conflicts, state: &state, keepsState)
            if keepsUpdates { oldUpdates.append(old) }
            if let state { storedStates[update.snapshot.objectID] = state }
        }
        var keyWriter = ByteWriter(capacity: 64)
        if !request.deletes.isEmpty {
            var cursors = RecordCursors(txn)
            defer { cursors.close() }
            for (i, delete) in request.deletes.enumerated() {
                let layout = plan.deleteLayouts[i]
                let pk = delete.objectID.primaryKey!
                let cursor = try cursors.cursor(on: layout)
                recordReads.add(1, ordering: .relaxed)
                guard let bytes = try PrimaryKey.withKey(pk, { try cursor.seek(exactly: $0) }) else {
                    conflicts.append(
                        SaveConflict(
                            objectID: delete.objectID, expectedVersion: delete.expectedVersion, storedSnapshot: nil))
                    continue
                }
                if try decodeVersion(bytes, pk, layout) != delete.expectedVersion {
                    conflicts.append(
                        SaveConflict(
                            objectID: delete.objectID, expectedVersion: delete.expectedVersion,
                            storedSnapshot: try decode(bytes, pk, layout)))
                    continue
                }
                guard conflicts.isEmpty else { continue }
                if recording && layout.keepsTombstones && delete.previous?.version != delete.expectedVersion {
                    storedStates[delete.objectID] = try decode(bytes, pk, layout)
                }
                if !layout.secondaries.isEmpty {
                    let old = try indexedValues(bytes, pk, layout)
                    try removeSecondaries(of: pk, old, layout, txn, &keyWriter)
                }
                try cursor.deleteCurrent()
            }
        }
        if !conflicts.isEmpty {
            throw StrataError(
                .conflict,
                "\(conflicts.count) object\(conflicts.count == 1 ? "" : "s") changed in the LMDB store at \(environment.path) since they were read; nothing was saved: "
                    + conflicts.prefix(10).map(\.description).joined(separator: "; ")
                    + (conflicts.count > 10 ? "; and \(conflicts.count - 10) more (see conflicts)" : ""),
                location: ["path": environment.path], conflicts: conflicts)
        }

        var writer = ByteWriter(capacity: 512)

        // 2. Old secondary entries of updated objects (from the values read in step 1).
        for (i, old) in oldUpdates.enumerated() where !plan.updateLayouts[i].secondaries.isEmpty {
            let pk = request.updates[i].snapshot.objectID.primaryKey!
            try removeSecondaries(of: pk, old!, plan.updateLayouts[i], txn, &keyWriter)
        }

        // 3. Records of updated and inserted objects.
        var versions: [ObjectID: Int64] = [:]
        versions.reserveCapacity(request.updates.count + request.inserts.count)
        for (i, update) in request.updates.enumerated() {
            let layout = plan.updateLayouts[i]
            let snapshot = update.snapshot
            let version = update.expectedVersion + 1
            writer.reset()
            RecordCodec.encode(snapshot, version: version, layout: layout, into: &writer)
            try PrimaryKey.withKey(snapshot.objectID.primaryKey!) { key in
                _ = try writer.bytes.withUnsafeBytes { try txn.put(layout.records, key: key, value: $0) }
            }
            versions[snapshot.objectID] = version
        }
        // The largest key of each entity written to so far: inserts above it are appended.
        var highest: [ObjectIdentifier: (layout: EntityLayout, key: Int64)] = [:]
        var current: (layout: EntityLayout, key: Int64)?
        for (i, snapshot) in request.inserts.enumerated() {
            let layout = plan.insertLayouts[i]
            let pk = snapshot.objectID.primaryKey!
            if current?.layout !== layout {
                if let current { highest[ObjectIdentifier(current.layout)] = current }
                if let known = highest[ObjectIdentifier(layout)] {
                    current = known
                } else {
                    current = (layout, try lastKey(layout.records, txn))
                }
            }
            let last = current!.key
            writer.reset()
            RecordCodec.encode(snapshot, version: 1, layout: layout, into: &writer)
            let appending = pk > last
            let stored = try PrimaryKey.withKey(pk) { key in
                try writer.bytes.withUnsafeBytes {
                    try txn.put(
                        layout.records, key: key, value: $0, flags: UInt32(appending ? MDB_APPEND : MDB_NOOVERWRITE))
                }
            }
            guard stored else {
                throw StrataError(
                    .invalidObjectID,
                    "\(snapshot.objectID) is inserted but already exists in the LMDB store at \(environment.path); nothing was saved",
                    location: [
                        "entity": layout.entity.name, "object": snapshot.objectID.description, "path": environment.path,
                    ])
            }
            current!.key = max(last, pk)
            versions[snapshot.objectID] = 1
        }
        if let current { highest[ObjectIdentifier(current.layout)] = current }

        // 4. New secondary entries, with unique checks against the final state.
        for (i, update) in request.updates.enumerated() where !plan.updateLayouts[i].secondaries.isEmpty {
            try addSecondaries(of: update.snapshot, plan.updateLayouts[i], txn, &keyWriter)
        }
        for (i, snapshot) in request.inserts.enumerated() where !plan.insertLayouts[i].secondaries.isEmpty {
            try addSecondaries(of: snapshot, plan.insertLayouts[i], txn, &keyWriter)
        }

        // 5. Sequences never fall behind an inserted key; user metadata.
        for (layout, pk) in highest.values where pk > (try sequence(txn, layout.entity.name)) {
            try setSequence(txn, layout.entity.name, pk)
        }
        for (key, value) in request.metadataChanges {
            let name = LMDBLayout.userInfoPrefix + key
            if let value {
                try LMDBStore.putText(txn, metadataDBI, name, value)
            } else {
                try Array(name.utf8).withUnsafeBytes { _ = try txn.delete(metadataDBI, key: $0) }
            }
        }

        // 6. The save's history transaction.
        let token = recording ? try recordHistory(of: request, txn) { storedStates[$0] } : nil
        return SaveResult(versions: versions, historyToken: token)
    }

    /// Reads the record of object `pk` once: appends a conflict to `conflicts` when its stored
    /// version is not `expected` (or it is gone); otherwise returns the stored values its
    /// secondary entries are keyed by when `layout` has secondary databases (whose old entries
    /// the save removes), else `nil`, and sets `state` to the stored snapshot when `keepsState`.
    private func check(
        _ pk: Int64, expected: Int64, _ layout: EntityLayout, _ txn: LMDBTransaction,
        _ conflicts: inout [SaveConflict], state: inout Snapshot?, _ keepsState: Bool
    ) throws -> IndexedValues? {
        guard let bytes = try record(pk, layout, txn) else {
            conflicts.append(
                SaveConflict(objectID: layout.objectID(pk), expectedVersion: expected, storedSnapshot: nil))
            return nil
        }
        let stored = try decodeVersion(bytes, pk, layout)
        if stored != expected {
            conflicts.append(
                SaveConflict(
                    objectID: layout.objectID(pk), expectedVersion: expected,
                    storedSnapshot: try decode(bytes, pk, layout)
                ))
            return nil
        }
        if keepsState { state = try decode(bytes, pk, layout) }
        guard !layout.secondaries.isEmpty else { return nil }
        return try indexedValues(bytes, pk, layout)
    }

    /// The stored values the secondary entries of `pk` are keyed by, reporting damage as
    /// ``StrataError/Code/storeCorrupt``.
    private func indexedValues(_ bytes: UnsafeRawBufferPointer, _ pk: Int64, _ layout: EntityLayout) throws
        -> IndexedValues
    {
        do {
            return try RecordCodec.indexedValues(of: bytes, layout: layout)
        } catch let corruption as RecordCorruption {
            throw corrupt(corruption, pk, layout)
        }
    }

    /// The stored record of `pk` read by a save, counted in ``recordReadsInSaves``.
    private func record(_ pk: Int64, _ layout: EntityLayout, _ txn: LMDBTransaction) throws
        -> UnsafeRawBufferPointer?
    {
        recordReads.add(1, ordering: .relaxed)
        return try PrimaryKey.withKey(pk) { try txn.get(layout.records, key: $0) }
    }

    /// The stored snapshot of `pk`, or `nil`.
    func storedSnapshot(_ pk: Int64, _ layout: EntityLayout, _ txn: LMDBTransaction) throws -> Snapshot? {
        guard let bytes = try PrimaryKey.withKey(pk, { try txn.get(layout.records, key: $0) }) else { return nil }
        return try decode(bytes, pk, layout)
    }

    /// The largest primary key stored in `dbi` (`Int64.min` when empty).
    private func lastKey(_ dbi: MDB_dbi, _ txn: LMDBTransaction) throws -> Int64 {
        let cursor = try txn.cursor(dbi)
        defer { cursor.close() }
        guard let entry = try cursor.move(MDB_LAST) else { return Int64.min }
        return PrimaryKey.decode(entry.key) ?? Int64.max
    }

    /// Removes the secondary entries of object `pk`, keyed by its stored values `old`.
    private func removeSecondaries(
        of pk: Int64, _ old: IndexedValues, _ layout: EntityLayout, _ txn: LMDBTransaction,
        _ keyWriter: inout ByteWriter
    ) throws {
        try PrimaryKey.withKey(pk) { pkBytes in
            for secondary in layout.secondaries {
                if case .toOne(let position) = secondary.kind {
                    guard case .toOne(let target?) = old.relationships[position], let targetKey = target.primaryKey
                    else { continue }
                    try PrimaryKey.withKey(targetKey) { key in
                        _ = try txn.delete(secondary.dbi, key: key, value: pkBytes)
                    }
                } else {
                    IndexKey.encode(old.attributes, positions: secondary.attributes, into: &keyWriter)
                    try keyWriter.bytes.withUnsafeBytes { key in
                        _ = try txn.delete(secondary.dbi, key: key, value: pkBytes)
                    }
                }
            }
        }
    }

    private func addSecondaries(
        of snapshot: Snapshot, _ layout: EntityLayout, _ txn: LMDBTransaction, _ keyWriter: inout ByteWriter
    ) throws {
        let pk = snapshot.objectID.primaryKey!
        try PrimaryKey.withKey(pk) { pkBytes in
            for secondary in layout.secondaries {
                if case .toOne(let position) = secondary.kind {
                    guard case .toOne(let target?) = snapshot.relationships[position], let targetKey = target.primaryKey
                    else { continue }
                    try PrimaryKey.withKey(targetKey) { key in
                        _ = try txn.put(secondary.dbi, key: key, value: pkBytes, flags: UInt32(MDB_NODUPDATA))
                    }
                    continue
                }
                IndexKey.encode(snapshot.attributes, positions: secondary.attributes, into: &keyWriter)
                if secondary.kind == .unique {
                    try checkUnique(snapshot, secondary, layout, txn, key: keyWriter.bytes)
                }
                try keyWriter.bytes.withUnsafeBytes { key in
                    _ = try txn.put(secondary.dbi, key: key, value: pkBytes, flags: UInt32(MDB_NODUPDATA))
                }
            }
        }
    }

    /// Throws ``StrataError/Code/uniqueConstraint`` when another object holds the same values.
    /// A tuple with a `nil` in it is never a duplicate (as in SQL).
    private func checkUnique(
        _ snapshot: Snapshot, _ secondary: EntityLayout.Secondary, _ layout: EntityLayout, _ txn: LMDBTransaction,
        key: [UInt8]
    ) throws {
        let values = secondary.attributes.map { snapshot.attributes[$0] }
        if values.contains(where: \.isNull) { return }
        let pk = snapshot.objectID.primaryKey!
        var candidates: [Int64] = []
        let cursor = try txn.cursor(secondary.dbi)
        defer { cursor.close() }
        try key.withUnsafeBytes { bytes in
            var entry = try cursor.seek(atLeast: bytes)
            while let current = entry, current.key.elementsEqual(bytes) {
                if let candidate = PrimaryKey.decode(current.value), candidate != pk { candidates.append(candidate) }
                entry = try cursor.move(MDB_NEXT_DUP)
            }
        }
        for candidate in candidates {
            guard let bytes = try record(candidate, layout, txn) else { continue }
            let other = try decode(bytes, candidate, layout)
            if secondary.attributes.allSatisfy({ other.attributes[$0] == snapshot.attributes[$0] }) {
                let names = secondary.attributes.map { layout.entity.attributes[$0].name }
                throw StrataError(
                    .uniqueConstraint,
                    "\(snapshot.objectID) and \(other.objectID) would both have \(names.joined(separator: ", ")) = \(values.map(\.description).joined(separator: ", ")), which must be unique; nothing was saved",
                    location: [
                        "entity": layout.entity.name, "property": names.joined(separator: ","),
                        "object": snapshot.objectID.description,
                    ],
                    validationFailures: [
                        ValidationFailure(
                            objectID: snapshot.objectID, property: names.joined(separator: ","),
                            reason:
                                "duplicates \(other.objectID) (\(values.map(\.description).joined(separator: ", ")))")
                    ])
            }
        }
    }
}

/// One cursor per entity's records database, opened when a save first deletes from it and
/// closed when the save's work is done.
private struct RecordCursors {
    private let txn: LMDBTransaction
    private var open: [(layout: EntityLayout, cursor: LMDBCursor)] = []

    init(_ txn: LMDBTransaction) { self.txn = txn }

    /// The cursor on the records of `layout`.
    @inline(__always)
    mutating func cursor(on layout: EntityLayout) throws -> LMDBCursor {
        if let last = open.last, last.layout === layout { return last.cursor }
        if let index = open.firstIndex(where: { $0.layout === layout }) {
            open.append(open.remove(at: index))
            return open[open.count - 1].cursor
        }
        let cursor = try txn.cursor(layout.records)
        open.append((layout, cursor))
        return cursor
    }

    func close() { for entry in open { entry.cursor.close() } }
}
