import Foundation
import StrataCore
import StrataEngine

/// The engine object behind a model instance: it holds the model's values in the slots of the
/// model's entity, and gives the engine's contexts, faulting, uniquing and every backend to the
/// model. SwiftData's backing data.
///
/// `@Model` generates the code that uses it; you never need to. A model made by its own
/// initializer (`Trip(name:)`) is backed by a *detached* object, which holds its values until
/// ``ModelContext/insert(_:)`` adopts it; a model read from a store is made by
/// `init(backingData:)` around the object the fetch produced.
///
/// The context holds one object per stored object, and the object points at its model for as
/// long as the model lives: one model instance per object per context, for as long as somebody
/// uses it. The model holds the object strongly; the object's pointer back is not reference
/// counted, and the model's storage (``_ModelBackingStorage``) clears it when the model goes.
public final class BackingData<Model: PersistentModel>: ManagedObject {
    /// The model this object backs, while it lives (cleared by the model's storage).
    @usableFromInline
    unowned(unsafe) var model: Model?
    /// The relationship targets of a detached object, by relationship index: applied when it
    /// is inserted.
    var pendingTargets: [Int: [any PersistentModel]] = [:]

    /// Made by contexts (fetches, lookups) and by ``detached()``.
    public required init(entity: Entity, objectID: ObjectID, context: ObjectContext?) {
        super.init(entity: entity, objectID: objectID, context: context)
    }

    /// The entity name of `Model`.
    public override class var entityName: String { StrataData.entityName(of: Model.self) }

    /// The model's properties, numbered as the engine's typed slot API reads them: attributes
    /// and relationships apart, in declaration order.
    public override class var declaredProperties: [DeclaredProperty] { Model._$layout.declaredProperties }

    /// A new detached object for a model made by its own initializer.
    public static func detached() -> BackingData<Model> {
        let layout = Model._$layout
        #if DEBUG
            layout.detachedObjectsMade.withLock { $0 += 1 }
        #endif
        let object = BackingData(
            entity: layout.entity, objectID: .temporary(like: layout.temporarySibling), context: nil)
        object.prepareDetached()
        return object
    }

    /// Whether no context adopted the object yet (the engine's detached flag: one stored word,
    /// not the object's weak reference to its context).
    @usableFromInline
    var isUnattached: Bool { isDetached }

    /// Whether a model instance is backed by this object now (for tests of the link's shape).
    package var backsAModel: Bool { model != nil }

    /// The model context holding the object, if any.
    var modelContext: ModelContext? { context.flatMap(ModelContext.owner(of:)) }

    /// The model of this object: the one it has, or a new one.
    @inlinable
    func currentModel() -> Model {
        if let model { return model }
        let model = Model(backingData: self)
        self.model = model
        return model
    }
}

/// Makes the model for a backing object: the one it has, or a new one.
@inlinable
func model<Model: PersistentModel>(for object: ManagedObject, as type: Model.Type) -> Model {
    unsafeDowncast(object, to: BackingData<Model>.self).currentModel()
}
