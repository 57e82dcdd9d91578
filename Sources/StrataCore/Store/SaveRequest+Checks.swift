/// Checks every store runs on a save request before writing anything, so that all backends
/// reject bad input the same way, with the same messages.
extension SaveRequest {
    /// Checks that every snapshot fits `model`: known entity, IDs of this store, values of the
    /// right type, required values present, relationship targets of the right entity and kind.
    ///
    /// - Throws: ``StrataError/Code/unknownEntity``, ``StrataError/Code/invalidObjectID``,
    ///   ``StrataError/Code/typeMismatch`` or ``StrataError/Code/missingValue``, naming the object
    ///   and property.
    public func checkShape(against model: Model, storeIdentifier: String) throws {
        // Snapshots come grouped by entity: resolve each run's entity once.
        // Snapshots are read in place (indices, not copies): this runs on every save.
        // A run's scope (entity and store) is resolved and checked once.
        var entity: Entity?
        var runScope: ObjectID.Scope?
        for index in inserts.indices {
            if inserts[index].objectID.scope != runScope {
                entity = try model.requireEntity(inserts[index].objectID.entityName)
                try inserts[index].objectID.checkBelongs(to: storeIdentifier)
                runScope = inserts[index].objectID.scope
            }
            try inserts[index].checkValues(of: entity!, storeIdentifier: storeIdentifier)
        }
        for index in updates.indices {
            if updates[index].snapshot.objectID.scope != runScope {
                entity = try model.requireEntity(updates[index].snapshot.objectID.entityName)
                try updates[index].snapshot.objectID.checkBelongs(to: storeIdentifier)
                runScope = updates[index].snapshot.objectID.scope
            }
            try updates[index].snapshot.checkValues(of: entity!, storeIdentifier: storeIdentifier)
        }
        for delete in deletes {
            _ = try model.requireEntity(delete.objectID.entityName)
            try delete.objectID.checkBelongs(to: storeIdentifier)
        }
        var seen = Set<ObjectID>(minimumCapacity: inserts.count + updates.count + deletes.count)
        func see(_ id: ObjectID) throws {
            guard seen.insert(id).inserted else {
                throw StrataError(
                    .invalidRequest, "\(id) appears more than once in one save",
                    location: ["object": id.uriRepresentation])
            }
        }
        for index in inserts.indices { try see(inserts[index].objectID) }
        for index in updates.indices { try see(updates[index].snapshot.objectID) }
        for delete in deletes { try see(delete.objectID) }
    }
}

extension ObjectID {
    /// Throws ``StrataError/Code/invalidObjectID`` unless this is a permanent ID of the store `storeIdentifier`.
    public func checkBelongs(to storeIdentifier: String) throws {
        guard !isTemporary else {
            throw StrataError(
                .invalidObjectID, "\(self) is temporary; obtain a permanent ID from the store before saving",
                location: ["object": uriRepresentation])
        }
        guard self.storeIdentifier == storeIdentifier else {
            throw StrataError(
                .invalidObjectID, "\(self) belongs to store \(self.storeIdentifier), not to \(storeIdentifier)",
                location: ["object": uriRepresentation])
        }
    }
}

extension Snapshot {
    /// Checks this snapshot against its entity in `model` (see ``SaveRequest/checkShape(against:storeIdentifier:)``).
    public func checkShape(against model: Model, storeIdentifier: String) throws {
        try checkShape(of: model.requireEntity(objectID.entityName), storeIdentifier: storeIdentifier)
    }

    /// The same check, for a caller that already resolved the snapshot's entity (a store with a
    /// per-entity layout on its hot path).
    public func checkShape(of entity: Entity, storeIdentifier: String) throws {
        try objectID.checkBelongs(to: storeIdentifier)
        try checkValues(of: entity, storeIdentifier: storeIdentifier)
    }

    /// ``checkShape(of:storeIdentifier:)`` less the check of the snapshot's own ID.
    func checkValues(of entity: Entity, storeIdentifier: String) throws {
        guard attributes.count == entity.attributes.count, relationships.count == entity.relationships.count else {
            throw StrataError(
                .invalidRequest,
                "the snapshot of \(objectID) has \(attributes.count) attributes and \(relationships.count) relationships; '\(entity.name)' has \(entity.attributes.count) and \(entity.relationships.count)",
                location: ["object": objectID.uriRepresentation])
        }
        // Fields are read in place (indices, not copies of each attribute): this runs for every
        // value of every save.
        for index in attributes.indices {
            let value = attributes[index]
            if value.isNull {
                guard entity.attributes[index].isOptional else {
                    let attribute = entity.attributes[index]
                    throw StrataError(
                        .missingValue,
                        "\(objectID): the required attribute '\(entity.name).\(attribute.name)' has no value",
                        location: ["object": objectID.uriRepresentation, "entity": entity.name, "key": attribute.name])
                }
            } else if !value.fits(entity.attributes[index].type) {
                let attribute = entity.attributes[index]
                throw StrataError(
                    .typeMismatch,
                    "\(objectID): '\(entity.name).\(attribute.name)' is a \(attribute.type.rawValue) and cannot hold \(value) (\(value.typeName))",
                    location: ["object": objectID.uriRepresentation, "entity": entity.name, "key": attribute.name])
            }
        }
        for index in relationships.indices {
            if case .toOne(nil) = relationships[index], !entity.relationships[index].isToMany { continue }
            if case .toMany(let ids) = relationships[index], ids.isEmpty, entity.relationships[index].isToMany {
                continue
            }
            let relationship = entity.relationships[index]
            let value = relationships[index]
            var location: [String: String] {
                ["object": objectID.uriRepresentation, "entity": entity.name, "key": relationship.name]
            }
            switch value {
            case .toOne where relationship.isToMany, .toMany where !relationship.isToMany:
                throw StrataError(
                    .typeMismatch,
                    "\(objectID): '\(entity.name).\(relationship.name)' is a \(relationship.isToMany ? "to-many" : "to-one") relationship",
                    location: location)
            default: break
            }
            // Targets of one scope (entity and store) are checked once.
            var verified: ObjectID.Scope?
            func check(_ target: ObjectID) throws {
                if target.scope == verified { return }
                guard target.entityName == relationship.destination else {
                    throw StrataError(
                        .typeMismatch,
                        "\(objectID): '\(entity.name).\(relationship.name)' holds \(relationship.destination) objects, not \(target)",
                        location: location)
                }
                try target.checkBelongs(to: storeIdentifier)
                verified = target.scope
            }
            switch value {
            case .toOne(let target?): try check(target)
            case .toOne(nil): break
            case .toMany(let targets): for target in targets { try check(target) }
            }
        }
    }
}
