import Foundation
import StrataCore
import StrataEngine

extension ModelContext {
    /// SwiftData's upsert: an inserted model whose values on a unique constraint (an
    /// `@Attribute(.unique)` property, or one list of `#Unique`) a stored model holds already
    /// updates that model instead of failing the save. The stored model takes the inserted one's
    /// values and relationships, and the inserted model instance is backed by the stored object
    /// from then on (so it has its identifier). A constraint with `nil` in one of its values
    /// matches nothing, as in the store. Returns whether it merged any.
    ///
    /// ``save()`` calls it only after a save failed validation, so a save without collisions
    /// makes none of its fetches.
    func mergeUniqueInserts() throws -> Bool {
        var merged = false
        for object in objectContext.insertedObjects {
            for constraint in object.entity.uniqueConstraints {
                let values = try constraint.map { try object.value(for: $0) }
                if values.contains(where: \.isNull) { continue }
                let equalities = zip(constraint, values).map { name, value in
                    ObjectPredicate.key(PropertyPath(name)) == value
                }
                let predicate = equalities.dropFirst().reduce(equalities[0]) { $0 && $1 }
                let request = FetchRequest(entityName: object.entity.name, predicate: predicate, limit: 1)
                let stored = try objectContext.fetch(request, options: FetchOptions(includesPendingChanges: false))
                guard let existing = stored.first, existing !== object, !existing.isDeleted else { continue }
                try merge(object, into: existing)
                merged = true
                break
            }
        }
        return merged
    }

    /// Moves `inserted`'s values, relationships and model instance to `existing`, then drops it.
    private func merge(_ inserted: ManagedObject, into existing: ManagedObject) throws {
        let entity = inserted.entity
        let values = try entity.attributes.map { try inserted.value(for: $0.name) }
        let targets = try entity.relationships.map { try inserted.objectIDs(for: $0.name) }
        objectContext.delete(inserted)
        for (attribute, value) in zip(entity.attributes, values) { try existing.set(value, for: attribute.name) }
        for (relationship, ids) in zip(entity.relationships, targets) where !ids.isEmpty {
            let objects = ids.map { objectContext.object(with: $0) }
            if relationship.isToMany {
                try existing.setObjects(objects, for: relationship.name)
            } else {
                try existing.setObject(objects.first, for: relationship.name)
            }
        }
        (inserted as? any ModelBacking)?.moveModel(to: existing)
    }
}

/// A backing object, whatever its model type.
protocol ModelBacking: ManagedObject {
    /// Makes the model this object backs be backed by `other` (an object of the same entity).
    func moveModel(to other: ManagedObject)
}

extension BackingData: ModelBacking {
    func moveModel(to other: ManagedObject) {
        guard let model, let other = other as? BackingData<Model> else { return }
        model.persistentBackingData = other
        other.model = model
        self.model = nil
    }
}
