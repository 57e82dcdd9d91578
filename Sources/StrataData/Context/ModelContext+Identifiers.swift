import StrataEngine

extension ModelContext {
    /// The model of type `T` whose identifier is `id`: the one the context holds, or one
    /// loaded from the store; `nil` when no store holds it or it is of another type.
    func existingModel<T: PersistentModel>(for id: PersistentIdentifier, as type: T.Type) -> T? {
        guard id.entityName == T.entityName, let object = try? objectContext.existingObject(with: id.objectID),
            object is BackingData<T>
        else { return nil }
        return StrataData.model(for: object, as: T.self)
    }
}
