/// What stores share to implement ``BatchOperating``: the checked assignments of a batch update,
/// and an object's state with the references to deleted objects taken out.
extension Entity {
    /// The attribute indexes and values of `values` (attribute name to value) for a batch update,
    /// in name order.
    ///
    /// - Throws: ``StrataError/Code/unknownKey`` for a name that is not an attribute,
    ///   ``StrataError/Code/missingValue`` for `nil` on a required attribute,
    ///   ``StrataError/Code/typeMismatch`` for a value of another type.
    public func batchAssignments(_ values: [String: Value]) throws -> [(index: Int, value: Value)] {
        try values.sorted { $0.key < $1.key }.map { name, value in
            let location = ["entity": self.name, "key": name]
            guard let index = attributeIndex(named: name) else {
                throw StrataError(.unknownKey, "'\(self.name)' has no attribute '\(name)'", location: location)
            }
            let attribute = attributes[index]
            if value.isNull && !attribute.isOptional {
                throw StrataError(
                    .missingValue, "'\(self.name).\(name)' is required and cannot be set to nil", location: location)
            }
            guard value.fits(attribute.type) else {
                throw StrataError(
                    .typeMismatch, "'\(self.name).\(name)' is a \(attribute.type.rawValue) and cannot hold \(value)",
                    location: location)
            }
            return (index, value)
        }
    }
}

extension Snapshot {
    /// This state (of an object of `entity`) without its references to `gone`, objects of
    /// `destination`: a to-one to one of them becomes `nil`, a to-many loses them. The version is
    /// left as it is; the snapshot is equal to this one when nothing referred to them.
    public func droppingTargets(_ gone: Set<ObjectID>, of destination: String, in entity: Entity) -> Snapshot {
        var changed = self
        for (index, relationship) in entity.relationships.enumerated() where relationship.destination == destination {
            switch relationships[index] {
            case .toOne(let target?) where gone.contains(target): changed.relationships[index] = .toOne(nil)
            case .toMany(let targets) where targets.contains(where: gone.contains):
                changed.relationships[index] = .toMany(targets.filter { !gone.contains($0) })
            default: break
            }
        }
        return changed
    }
}
