import Foundation
import StrataCore

extension XMLStore {
    /// Applies `request` atomically and rewrites the file.
    ///
    /// In order, before anything is written: every update's and delete's expected version is
    /// checked (all conflicts are reported together, ``StrataError/Code/conflict``); every
    /// snapshot is checked against the model (``StrataError/Code/unknownEntity``,
    /// ``StrataError/Code/typeMismatch``, ``StrataError/Code/missingValue``,
    /// ``StrataError/Code/invalidObjectID`` for a foreign or unknown ID or a reference to an
    /// object that will not exist). Then, holding the writer lock, the file on disk is checked to
    /// be the one this store loaded or last saved (``StrataError/Code/storeBusy`` otherwise), the
    /// next version is written and renamed into place, and only then does memory change.
    ///
    /// References to deleted objects held by objects the request does not mention (a `noAction`
    /// delete rule) are removed, so the file never refers to an object it does not hold.
    @discardableResult
    public func save(_ request: SaveRequest) throws -> SaveResult {
        try saveLock.withLock {
            let (current, hook, fileLock) = try state.withLock { state in
                try checkOpen(state)
                return (state.image, state.beforeRename, state.fileLock)
            }
            guard !options.isReadOnly, let fileLock else {
                throw StrataError(.readOnly, "the XML store \(path) was opened read-only", location: ["path": path])
            }
            if request.isEmpty { return SaveResult() }
            var result = SaveResult()
            let next = try apply(request, to: current, result: &result)

            try replaceFile(with: next, fileLock: fileLock, hook: hook, loggedMetadata: request.loggedMetadata)
            return result
        }
    }

    /// Writes `next` as the store's file and makes it the store's state, holding the writer
    /// lock, after checking that the file on disk is the one this store loaded or last saved.
    /// Called with ``saveLock`` held.
    func replaceFile(
        with next: XMLStoreImage, fileLock: XMLFileLock, hook: (@Sendable () throws -> Void)?,
        loggedMetadata: [String: String]
    ) throws {
        try fileLock.lock(timeoutMilliseconds: options.lockTimeoutMilliseconds, storePath: path)
        defer { fileLock.unlock() }
        let loaded = state.withLock { $0.fileIdentity }
        let onDisk = XMLFileIdentity.of(path: path)
        guard onDisk == loaded else {
            throw StrataError(
                .storeBusy,
                "the XML store \(path) "
                    + (onDisk == nil ? "was deleted or moved" : "was changed on disk by another process")
                    + " since this store loaded it; nothing was written, so that change is not lost: reopen the store and save again",
                location: ["path": path])
        }
        let writer = XMLStoreWriter(layout: layout)
        let identity = try operationLog.timed {
            try XMLAtomicFile.replace(path, beforeRename: hook) { fd, temporary in
                try writer.write(next, to: fd, path: temporary)
            }
        } _: { identity in
            var metadata = loggedMetadata
            metadata["objects"] = String(next.objectCount)
            metadata["bytes"] = String(identity.size)
            return ("saved \(next.objectCount) objects", metadata)
        }
        state.withLock { state in
            // Keys handed out while the file was being written stay handed out.
            var image = next
            for e in image.nextKeys.indices { image.nextKeys[e] = max(image.nextKeys[e], state.image.nextKeys[e]) }
            state.image = image
            state.fileIdentity = identity
        }
    }

    /// The graph after `request`, or the first error found (nothing is changed on error).
    func apply(_ request: SaveRequest, to current: XMLStoreImage, result: inout SaveResult) throws -> XMLStoreImage {
        let entityCount = layout.entities.count
        try checkShape(of: request)
        result.versions.reserveCapacity(request.inserts.count + request.updates.count)

        // 1. Optimistic locking: every conflict, at once.
        var conflicts: [SaveConflict] = []
        func checkVersion(_ id: ObjectID, expected: Int64) throws {
            let e = try ownIndex(of: id)
            let table = current.tables[e]
            let i = table.index(of: id.primaryKey!)
            if i.map({ table.version(at: $0) }) != expected {
                conflicts.append(
                    SaveConflict(
                        objectID: id, expectedVersion: expected, storedSnapshot: i.map { snapshot(e, table, $0) }))
            }
        }
        for update in request.updates { try checkVersion(update.snapshot.objectID, expected: update.expectedVersion) }
        for delete in request.deletes { try checkVersion(delete.objectID, expected: delete.expectedVersion) }
        if !conflicts.isEmpty {
            throw StrataError(
                .conflict,
                "\(conflicts.count) object\(conflicts.count == 1 ? "" : "s") changed in the XML store \(path) since \(conflicts.count == 1 ? "it was" : "they were") read; nothing was saved",
                location: ["path": path], conflicts: conflicts)
        }

        // 2. Values and IDs, grouped by entity.
        var inserted = Array(repeating: [(key: Int64, row: StoredRow)](), count: entityCount)
        var updated = Array(repeating: [Int64: StoredRow](), count: entityCount)
        var deleted = Array(repeating: Set<Int64>(), count: entityCount)
        for delete in request.deletes {
            deleted[try ownIndex(of: delete.objectID)].insert(delete.objectID.primaryKey!)
        }
        for snapshot in request.inserts {
            let e = try ownIndex(of: snapshot.objectID)
            let key = snapshot.objectID.primaryKey!
            guard current.tables[e].index(of: key) == nil else {
                throw StrataError(
                    .invalidObjectID,
                    "cannot insert \(snapshot.objectID): an object with that ID already exists in \(path)",
                    location: ["path": path, "entity": snapshot.objectID.entityName])
            }
            guard key < current.nextKeys[e] else {
                throw StrataError(
                    .invalidObjectID, "\(snapshot.objectID) was not handed out by this store (obtainPermanentIDs)",
                    location: ["path": path, "entity": snapshot.objectID.entityName])
            }
            inserted[e].append((key: key, row: try row(from: snapshot, entity: e, version: 1)))
            result.versions[snapshot.objectID] = 1
        }
        for update in request.updates {
            let id = update.snapshot.objectID
            let e = try ownIndex(of: id)
            if deleted[e].contains(id.primaryKey!) { continue }
            updated[e][id.primaryKey!] = try row(from: update.snapshot, entity: e, version: update.expectedVersion + 1)
            result.versions[id] = update.expectedVersion + 1
        }

        // 3. The next graph.
        var next = current
        var anyDeleted = false
        for e in 0..<entityCount where !inserted[e].isEmpty || !updated[e].isEmpty || !deleted[e].isEmpty {
            next.tables[e] = current.tables[e].applying(deleted: deleted[e], updated: updated[e], inserted: inserted[e])
            var largest = Int64.min
            for (key, _) in inserted[e] where key > largest { largest = key }
            if !inserted[e].isEmpty, largest >= next.nextKeys[e] {
                next.nextKeys[e] = largest == .max ? .max : largest + 1
            }
            if !deleted[e].isEmpty { anyDeleted = true }
        }
        if anyDeleted {
            for (e, entityLayout) in layout.entities.enumerated() where !entityLayout.entity.relationships.isEmpty {
                let destinations = entityLayout.destinations
                guard destinations.contains(where: { !deleted[$0].isEmpty }) else { continue }
                _ = next.tables[e].removeTargets { r, key in deleted[destinations[r]].contains(key) }
            }
        }

        // 4. Every reference written must name an object of the next graph.
        for e in 0..<entityCount where !layout.entities[e].emptyTargets.isEmpty {
            let entityLayout = layout.entities[e]
            func check(_ key: Int64, _ row: StoredRow) throws {
                for (r, targets) in row.relationships.enumerated() {
                    for target in targets.keys where next.tables[entityLayout.destinations[r]].index(of: target) == nil
                    {
                        let relationship = entityLayout.entity.relationships[r]
                        throw StrataError(
                            .invalidObjectID,
                            "\(entityLayout.entity.name) p\(key).\(relationship.name) refers to \(relationship.destination) p\(target), which does not exist in \(path) (and is not inserted by this save)",
                            location: ["path": path, "entity": entityLayout.entity.name, "key": relationship.name])
                    }
                }
            }
            for (key, row) in inserted[e] { try check(key, row) }
            for (key, row) in updated[e] { try check(key, row) }
        }

        try checkUniqueConstraints(in: next, inserted: inserted, updated: updated)
        for (key, value) in request.metadataChanges {
            next.metadata.userInfo[key] = value
        }
        if options.history.isEnabled {
            result.historyToken = try recordHistory(of: request, before: current, in: &next)
        }
        return next
    }

    /// Throws ``StrataError/Code/uniqueConstraint`` when an inserted or updated object shares the
    /// values of a unique constraint with another object of `image`. O(n) per constrained entity
    /// touched by the save.
    func checkUniqueConstraints(
        in image: XMLStoreImage, inserted: [[(key: Int64, row: StoredRow)]], updated: [[Int64: StoredRow]]
    ) throws {
        for (e, entityLayout) in layout.entities.enumerated() where !entityLayout.entity.uniqueConstraints.isEmpty {
            guard !inserted[e].isEmpty || !updated[e].isEmpty else { continue }
            let entity = entityLayout.entity
            var changed = Set(updated[e].keys)
            for (key, _) in inserted[e] { changed.insert(key) }
            let table = image.tables[e]
            for constraint in entity.uniqueConstraints {
                let indexes = constraint.map { entity.attributeIndex(named: $0)! }
                var owners: [[Value]: Int64] = [:]
                owners.reserveCapacity(table.count)
                for i in 0..<table.count {
                    let values = indexes.map { table.value($0, at: i) }
                    if values.contains(where: \.isNull) { continue }
                    let key = table.keys[i]
                    if let other = owners[values], changed.contains(key) || changed.contains(other) {
                        let id = ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: key)
                        let otherID = ObjectID(entityName: entity.name, storeIdentifier: identifier, primaryKey: other)
                        throw StrataError(
                            .uniqueConstraint,
                            "\(id) and \(otherID) both have \(constraint.joined(separator: ", ")) = \(values.map(\.description).joined(separator: ", ")); '\(entity.name)' requires it to be unique",
                            location: [
                                "path": path, "entity": entity.name, "key": constraint.joined(separator: ","),
                                "object": id.uriRepresentation,
                            ])
                    }
                    owners[values] = key
                }
            }
        }
    }

    /// The checks of ``SaveRequest/checkShape(against:storeIdentifier:)``, with the same errors, but
    /// finding repeated objects with one set of keys per entity instead of a set of object IDs
    /// (hashing 100,000 IDs, each with two strings, costs more than the rest of the checks).
    func checkShape(of request: SaveRequest) throws {
        for snapshot in request.inserts { try snapshot.checkShape(against: model, storeIdentifier: identifier) }
        for update in request.updates { try update.snapshot.checkShape(against: model, storeIdentifier: identifier) }
        for delete in request.deletes {
            _ = try model.requireEntity(delete.objectID.entityName)
            try delete.objectID.checkBelongs(to: identifier)
        }
        var keys = Array(repeating: [Int64](), count: layout.entities.count)
        var lastName = ""
        var lastIndex = 0
        func collect(_ id: ObjectID) {
            if id.entityName != lastName {
                lastName = id.entityName
                lastIndex = layout.entityIndexByName[lastName]!
            }
            keys[lastIndex].append(id.primaryKey!)
        }
        for snapshot in request.inserts { collect(snapshot.objectID) }
        for update in request.updates { collect(update.snapshot.objectID) }
        for delete in request.deletes { collect(delete.objectID) }
        for (e, entityKeys) in keys.enumerated() where entityKeys.count > 1 {
            // Usually already ascending (keys are handed out in order): O(n), no sort.
            var sorted = entityKeys
            if !zip(entityKeys, entityKeys.dropFirst()).allSatisfy({ $0 < $1 }) { sorted.sort() }
            for (a, b) in zip(sorted, sorted.dropFirst()) where a == b {
                let id = ObjectID(
                    entityName: layout.entities[e].entity.name, storeIdentifier: identifier, primaryKey: a)
                throw StrataError(
                    .invalidRequest, "\(id) appears more than once in one save",
                    location: ["object": id.uriRepresentation])
            }
        }
    }

    /// The entity index of a permanent ID of this store, or the error saying why it is not one.
    func ownIndex(of id: ObjectID) throws -> Int {
        let e = try entityIndex(id.entityName)
        guard id.primaryKey != nil else {
            throw StrataError(
                .invalidObjectID,
                "\(id) is a temporary ID; a store only saves objects with permanent IDs (obtainPermanentIDs)",
                location: ["path": path, "entity": id.entityName])
        }
        guard id.storeIdentifier == identifier else {
            throw StrataError(
                .invalidObjectID, "\(id) belongs to store '\(id.storeIdentifier)', not to this store '\(identifier)'",
                location: ["path": path, "entity": id.entityName])
        }
        return e
    }

    /// Turns `snapshot` (already checked by ``checkShape(of:)``) into a stored row, refusing text
    /// values longer than libxml2 reads back.
    func row(from snapshot: Snapshot, entity e: Int, version: Int64) throws -> StoredRow {
        let entityLayout = layout.entities[e]
        func tooLong(_ a: Int, _ what: String) -> StrataError {
            let name = entityLayout.entity.attributes[a].name
            return StrataError(
                .unsupported,
                "\(snapshot.objectID).\(name): \(what) is longer than the XML store's limit of \(XMLFormat.maximumValueLength) bytes of text per value",
                location: ["path": path, "entity": entityLayout.entity.name, "key": name])
        }
        for (a, value) in snapshot.attributes.enumerated() {
            switch value {
            case .string(let s) where s.utf8.count > XMLFormat.maximumValueLength / 2:
                if s.utf8.count > XMLFormat.maximumValueLength
                    || !XMLFormat.isXMLSafe(s.utf8) && (s.utf8.count + 2) / 3 * 4 > XMLFormat.maximumValueLength
                {
                    throw tooLong(a, "a string of \(s.utf8.count) bytes")
                }
            case .binary(let d) where (d.count + 2) / 3 * 4 > XMLFormat.maximumValueLength:
                throw tooLong(a, "\(d.count) bytes (base64: \((d.count + 2) / 3 * 4))")
            default:
                break
            }
        }
        if snapshot.relationships.isEmpty {
            return StoredRow(version: version, attributes: snapshot.attributes, relationships: [])
        }
        var relationships: [StoredRelationship] = []
        relationships.reserveCapacity(snapshot.relationships.count)
        for (r, value) in snapshot.relationships.enumerated() {
            switch value {
            case .toOne(let target):
                relationships.append(.toOne(target?.primaryKey))
            case .toMany(let targets):
                var keys = targets.map { $0.primaryKey! }
                if entityLayout.isUnorderedToMany[r] {
                    keys.sort()
                    var unique: [Int64] = []
                    unique.reserveCapacity(keys.count)
                    for k in keys where unique.last != k { unique.append(k) }
                    keys = unique
                } else if keys.count > 1 {
                    // An ordered to-many holds each object once, at its first place (the file
                    // would otherwise list it twice, which the loader refuses).
                    var seen = Set<Int64>(minimumCapacity: keys.count)
                    keys = keys.filter { seen.insert($0).inserted }
                }
                relationships.append(.toMany(keys))
            }
        }
        return StoredRow(version: version, attributes: snapshot.attributes, relationships: relationships)
    }
}
