/// What one save did to one model: SwiftData's `HistoryChange`.
///
/// ```swift
/// switch change {
/// case .insert(let insert as DefaultHistoryInsert<Trip>): added.insert(insert.changedPersistentIdentifier)
/// case .update(let update as DefaultHistoryUpdate<Trip>): changed.formUnion(update.updatedAttributes)
/// case .delete(let delete as DefaultHistoryDelete<Trip>): removedNames.append(delete.tombstone[\.name])
/// default: break
/// }
/// ```
///
/// Each change is typed by its model: `DefaultHistoryInsert<Trip>`, `DefaultHistoryUpdate<Trip>`,
/// `DefaultHistoryDelete<Trip>`.
public enum HistoryChange: Sendable {
    /// The save inserted the model.
    case insert(any HistoryInsert)
    /// The save changed some of the model's properties.
    case update(any HistoryUpdate)
    /// The save deleted the model.
    case delete(any HistoryDelete)

    /// The identifier of the changed model.
    public var changedPersistentIdentifier: PersistentIdentifier {
        switch self {
        case .insert(let change): change.changedPersistentIdentifier
        case .update(let change): change.changedPersistentIdentifier
        case .delete(let change): change.changedPersistentIdentifier
        }
    }
}

/// An insert in a store's history: SwiftData's `HistoryInsert`. Do not declare new conformances.
public protocol HistoryInsert<Model>: Sendable {
    /// The inserted model's type.
    associatedtype Model: PersistentModel
    /// The type of the change's identifier.
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    /// The type of the transaction's identifier.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// The change's identifier within its transaction.
    var changeIdentifier: ChangeIdentifier { get }
    /// The identifier of the inserted model.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The identifier of the change's transaction.
    var transactionIdentifier: TransactionIdentifier { get }
}

/// An update in a store's history: SwiftData's `HistoryUpdate`. Do not declare new conformances.
public protocol HistoryUpdate<Model>: Sendable {
    /// The updated model's type.
    associatedtype Model: PersistentModel
    /// The type of the change's identifier.
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    /// The type of the transaction's identifier.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// The change's identifier within its transaction.
    var changeIdentifier: ChangeIdentifier { get }
    /// The identifier of the updated model.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The identifier of the change's transaction.
    var transactionIdentifier: TransactionIdentifier { get }
    /// The stored properties the save changed (attributes and relationships), in declaration order.
    var updatedAttributes: [PartialKeyPath<Model>] { get }
}

/// A delete in a store's history: SwiftData's `HistoryDelete`. Do not declare new conformances.
public protocol HistoryDelete<Model>: Sendable {
    /// The deleted model's type.
    associatedtype Model: PersistentModel
    /// The type of the change's identifier.
    associatedtype ChangeIdentifier: Comparable, Hashable, Sendable
    /// The type of the transaction's identifier.
    associatedtype TransactionIdentifier: Comparable, Hashable, Sendable
    /// The change's identifier within its transaction.
    var changeIdentifier: ChangeIdentifier { get }
    /// The identifier of the deleted model.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The identifier of the change's transaction.
    var transactionIdentifier: TransactionIdentifier { get }
    /// The values of the model's `@Attribute(.preserveValueOnDeletion)` attributes when it was
    /// deleted.
    var tombstone: HistoryTombstone<Model> { get }
}
