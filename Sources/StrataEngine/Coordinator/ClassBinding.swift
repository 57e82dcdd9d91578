import StrataCore

/// The class a coordinator's contexts make for one entity, and where the class's typed
/// properties are in the entity (``PropertySlots``; `nil` when it declares none). Immutable:
/// registering another class for the entity replaces the binding.
final class ClassBinding: Sendable {
    let type: ManagedObject.Type
    /// The declarations the slots were bound from.
    let properties: [DeclaredProperty]
    let slots: PropertySlots?

    init(type: ManagedObject.Type, properties: [DeclaredProperty], slots: PropertySlots?) {
        self.type = type
        self.properties = properties
        self.slots = slots
    }
}
