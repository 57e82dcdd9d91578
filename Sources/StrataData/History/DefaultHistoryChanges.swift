import StrataCore

/// An insert in a Strata store's history: SwiftData's `DefaultHistoryInsert`.
public struct DefaultHistoryInsert<Model: PersistentModel>: HistoryInsert, Hashable {
    /// The change's position among its transaction's changes.
    public let changeIdentifier: Int
    /// The identifier of the inserted model.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The identifier (the sequence number) of the change's transaction.
    public let transactionIdentifier: Int64
}

/// An update in a Strata store's history: SwiftData's `DefaultHistoryUpdate`, with the values
/// before and after the save as Strata records them.
public struct DefaultHistoryUpdate<Model: PersistentModel>: HistoryUpdate, Hashable {
    /// The key paths of ``updatedAttributes``.
    public typealias PropertyUpdate = PartialKeyPath<Model>

    /// The change's position among its transaction's changes.
    public let changeIdentifier: Int
    /// The identifier of the updated model.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The identifier (the sequence number) of the change's transaction.
    public let transactionIdentifier: Int64
    /// The names of the stored properties the save changed, in declaration order.
    public let updatedPropertyNames: [String]

    /// The stored properties the save changed (attributes and relationships), in declaration order.
    public var updatedAttributes: [PartialKeyPath<Model>] {
        let keyPaths = Dictionary(
            Model.schemaMetadata.map { ($0.name, $0.keypath) }, uniquingKeysWith: { first, _ in first })
        return updatedPropertyNames.compactMap { keyPaths[$0] as? PartialKeyPath<Model> }
    }
}

/// A delete in a Strata store's history: SwiftData's `DefaultHistoryDelete`.
public struct DefaultHistoryDelete<Model: PersistentModel>: HistoryDelete, Hashable {
    /// The change's position among its transaction's changes.
    public let changeIdentifier: Int
    /// The identifier of the deleted model.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The identifier (the sequence number) of the change's transaction.
    public let transactionIdentifier: Int64
    /// The values of the model's `@Attribute(.preserveValueOnDeletion)` attributes when it was
    /// deleted.
    public let tombstone: HistoryTombstone<Model>
}

extension HistoryChange {
    /// The change of `Model` that `change`, the `index`th of transaction `sequence`, records.
    static func typed<Model: PersistentModel>(
        _ change: StrataCore.HistoryChange, index: Int, sequence: Int64, as _: Model.Type
    ) -> HistoryChange {
        let id = PersistentIdentifier(change.objectID)
        switch change.kind {
        case .insert:
            return .insert(
                DefaultHistoryInsert<Model>(
                    changeIdentifier: index, changedPersistentIdentifier: id, transactionIdentifier: sequence))
        case .update:
            return .update(
                DefaultHistoryUpdate<Model>(
                    changeIdentifier: index, changedPersistentIdentifier: id, transactionIdentifier: sequence,
                    updatedPropertyNames: change.properties.map(\.name)))
        case .delete:
            return .delete(
                DefaultHistoryDelete<Model>(
                    changeIdentifier: index, changedPersistentIdentifier: id, transactionIdentifier: sequence,
                    tombstone: HistoryTombstone(change.tombstone)))
        }
    }
}
