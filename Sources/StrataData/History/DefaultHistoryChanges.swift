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

/// An update in a Strata store's history: SwiftData's `DefaultHistoryUpdate`, with the changed
/// attributes' values before and after the save (``value(before:)``, ``value(after:)``).
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
    /// The changed attributes' values before the save.
    package let valuesBefore: HistoryTombstone<Model>
    /// The changed attributes' values after the save.
    package let valuesAfter: HistoryTombstone<Model>

    /// The value the attribute at `keyPath` had before the save, as the property's type
    /// (Strata's; SwiftData records no values): `nil` when the save did not change it, or it was
    /// `nil`.
    ///
    /// ```swift
    /// if case .update(let update as DefaultHistoryUpdate<Trip>) = change,
    ///     let old = update.value(before: \.name), let new = update.value(after: \.name)
    /// {
    ///     print("renamed \(old) to \(new)")
    /// }
    /// ```
    public func value<Value>(before keyPath: KeyPath<Model, Value>) -> Value? {
        valuesBefore.value(for: keyPath)
    }

    /// The value the attribute at `keyPath` has after the save, as the property's type
    /// (Strata's): `nil` when the save did not change it, or set it to `nil`.
    public func value<Value>(after keyPath: KeyPath<Model, Value>) -> Value? {
        valuesAfter.value(for: keyPath)
    }

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
            var before: [String: StrataCore.Value] = [:]
            var after: [String: StrataCore.Value] = [:]
            for property in change.properties {
                if case .attribute(let old) = property.oldValue { before[property.name] = old }
                if case .attribute(let new) = property.newValue { after[property.name] = new }
            }
            return .update(
                DefaultHistoryUpdate<Model>(
                    changeIdentifier: index, changedPersistentIdentifier: id, transactionIdentifier: sequence,
                    updatedPropertyNames: change.properties.map(\.name), valuesBefore: HistoryTombstone(before),
                    valuesAfter: HistoryTombstone(after)))
        case .delete:
            return .delete(
                DefaultHistoryDelete<Model>(
                    changeIdentifier: index, changedPersistentIdentifier: id, transactionIdentifier: sequence,
                    tombstone: HistoryTombstone(change.tombstone)))
        }
    }
}
