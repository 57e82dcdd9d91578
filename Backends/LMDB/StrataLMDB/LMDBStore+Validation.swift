import StrataCore

extension LMDBStore {
    /// Checks, before anything is written, that `snapshot` fits its entity: a permanent ID of
    /// this store, one value per attribute of the right type (``StrataError/Code/typeMismatch``),
    /// no `nil` for a required attribute (``StrataError/Code/missingValue``), and relationship
    /// values of the right kind pointing at the right entity.
    func validate(_ snapshot: Snapshot, _ layout: EntityLayout) throws {
        let id = snapshot.objectID
        let entity = layout.entity
        try validateID(id)
        guard snapshot.attributes.count == entity.attributes.count else {
            throw StrataError(
                .typeMismatch,
                "\(id) has \(snapshot.attributes.count) attribute values, but \(entity.name) has \(entity.attributes.count) attributes",
                location: ["entity": entity.name, "object": id.description])
        }
        guard snapshot.relationships.count == entity.relationships.count else {
            throw StrataError(
                .typeMismatch,
                "\(id) has \(snapshot.relationships.count) relationship values, but \(entity.name) has \(entity.relationships.count) relationships",
                location: ["entity": entity.name, "object": id.description])
        }
        for (position, value) in snapshot.attributes.enumerated() {
            let attribute = entity.attributes[position]
            if case .null = value {
                if !attribute.isOptional {
                    throw StrataError(
                        .missingValue,
                        "\(id): the required attribute '\(attribute.name)' is nil",
                        location: ["entity": entity.name, "object": id.description, "property": attribute.name])
                }
                continue
            }
            if !value.fits(attribute.type) {
                throw StrataError(
                    .typeMismatch,
                    "\(id): \(value) (\(value.typeName)) does not fit the \(attribute.type.rawValue) attribute '\(attribute.name)'",
                    location: ["entity": entity.name, "object": id.description, "property": attribute.name])
            }
        }
        for (position, value) in snapshot.relationships.enumerated() {
            let relationship = entity.relationships[position]
            let kindFits: Bool
            switch value {
            case .toOne: kindFits = !relationship.isToMany
            case .toMany: kindFits = relationship.isToMany
            }
            guard kindFits else {
                throw StrataError(
                    .typeMismatch,
                    "\(id): relationship '\(relationship.name)' is \(relationship.isToMany ? "to-many" : "to-one") but was given a \(relationship.isToMany ? "to-one" : "to-many") value",
                    location: ["entity": entity.name, "object": id.description, "property": relationship.name])
            }
            for target in value.targets where target.entityName != relationship.destination || target.primaryKey == nil {
                throw StrataError(
                    .typeMismatch,
                    "\(id): relationship '\(relationship.name)' points at \(target), which is not a saved \(relationship.destination)",
                    location: ["entity": entity.name, "object": id.description, "property": relationship.name])
            }
        }
    }

    /// Checks that `id` is a permanent ID of this store.
    func validateID(_ id: ObjectID) throws {
        guard id.primaryKey != nil else {
            throw StrataError(.invalidObjectID, "\(id) is temporary; a store saves only permanent IDs", location: ["entity": id.entityName, "object": id.description])
        }
        guard id.storeIdentifier == identifier else {
            throw StrataError(
                .invalidObjectID,
                "\(id) belongs to store '\(id.storeIdentifier)', not to this store ('\(identifier)')",
                location: ["entity": id.entityName, "object": id.description])
        }
    }
}
