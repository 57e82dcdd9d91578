import Foundation
import StrataCore
import StrataEngine

// The relationship accessors `@Model` generates call these, with the property's slot (its index
// among the model's relationships). A detached model keeps its related models until it is
// inserted; then they are inserted with it, as SwiftData does.

extension BackingData {
    /// The related model of to-one slot `slot`, or `nil`.
    @inlinable
    public func getValue<Related: PersistentModel>(at slot: Int) -> Related? {
        relatedModels(at: slot, as: Related.self).first
    }

    /// The related model of a non-optional to-one slot `slot`.
    @inlinable
    public func getValue<Related: PersistentModel>(at slot: Int) -> Related {
        guard let related = relatedModels(at: slot, as: Related.self).first else {
            preconditionFailure("\(objectID).\(entity.relationships[slot].name) is not set yet")
        }
        return related
    }

    /// The related models of to-many slot `slot`, by identifier.
    @inlinable
    public func getValue<Related: PersistentModel>(at slot: Int) -> [Related] {
        relatedModels(at: slot, as: Related.self)
    }

    /// Sets to-one slot `slot`, keeping the inverse in step.
    @inlinable
    public func setValue<Related: PersistentModel>(_ newValue: Related?, at slot: Int) {
        setRelatedModels(newValue.map { [$0] } ?? [], at: slot)
    }

    /// Sets a non-optional to-one slot `slot`, keeping the inverse in step.
    @inlinable
    public func setValue<Related: PersistentModel>(_ newValue: Related, at slot: Int) {
        setRelatedModels([newValue], at: slot)
    }

    /// Sets to-many slot `slot`, keeping every inverse in step.
    @inlinable
    public func setValue<Related: PersistentModel>(_ newValue: [Related], at slot: Int) {
        setRelatedModels(newValue, at: slot)
    }

    /// The related models of slot `slot`.
    @usableFromInline
    func relatedModels<Related: PersistentModel>(at slot: Int, as type: Related.Type) -> [Related] {
        if isUnattached { return (pendingTargets[slot] ?? []).map { $0 as! Related } }
        return relatedObjects(atSlot: slot).map { StrataData.model(for: $0, as: Related.self) }
    }

    /// Sets the related models of slot `slot`: kept until insertion while detached; else the
    /// detached ones are inserted in this object's context first.
    @usableFromInline
    func setRelatedModels<Related: PersistentModel>(_ models: [Related], at slot: Int) {
        if isUnattached {
            // An empty list is what an unset slot reads as: storing none keeps a model with an
            // empty to-many initial value (`var items: [Item] = []`) from allocating for it.
            pendingTargets[slot] = models.isEmpty ? nil : models
            return
        }
        guard let modelContext else {
            preconditionFailure("\(objectID) no longer belongs to a context")
        }
        for related in models where related.persistentBackingData.isUnattached { modelContext.insert(related) }
        setRelatedObjects(models.map(\.persistentBackingData), atSlot: slot)
    }
}
