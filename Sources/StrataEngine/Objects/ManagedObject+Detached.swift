import StrataCore

// Objects made before any context holds them: StrataData's models are created with their own
// initializers (`Trip(name:)`) and inserted into a context later, as SwiftData's are. Such an
// object is *detached*: no context, inserted state, every value held in its own storage. A
// context adopts it with ``ObjectContext/insertDetached(_:)``, after which it behaves like any
// object the context inserted.

extension ManagedObject {
    /// Makes this object, created with no context and a temporary ID, a new detached object:
    /// every attribute at its default, every relationship empty.
    package func prepareDetached() {
        let fresh = Snapshot(objectID: objectID, entity: entity)
        attributeValues = fresh.attributes
        relationshipValues = fresh.relationships
        state.isInserted = true
        state.isDirty = true
        state.isDetached = true
    }

    /// Whether the object was made by ``prepareDetached()`` and no context adopted it yet: a
    /// flag of its own, so that a typed write to a detached object asks one stored word instead
    /// of loading the object's weak reference to its context.
    package var isDetached: Bool { state.isDetached }

    /// Sets the attribute at `index` of a detached object.
    ///
    /// - Throws: ``StrataError/Code/typeMismatch`` when the value does not fit the attribute.
    package func setDetachedValue(_ value: Value, at index: Int) throws {
        let type = entity.attributeType(at: index)
        guard value.fits(type) else {
            throw StrataError(
                .typeMismatch,
                "'\(entity.name).\(entity.attributes[index].name)' is a \(type.rawValue) and cannot hold \(value) (\(value.typeName))",
                location: ["entity": entity.name, "key": entity.attributes[index].name])
        }
        attributeValues[index] = value
    }
}

extension ObjectContext {
    /// Adopts `object`, a detached object (see ``ManagedObject/prepareDetached()``), as a new
    /// object inserted in this context, with the values it holds. Its relationships must be
    /// empty; set them once it is inserted, so that both sides stay in step.
    ///
    /// - Throws: ``StrataError/Code/invalidObjectID`` when the object is not detached (it
    ///   belongs to a context already, or was deleted); ``StrataError/Code/unknownEntity`` or
    ///   ``StrataError/Code/invalidModel`` when this context's model lacks the object's entity
    ///   or declares it differently.
    package func insertDetached(_ object: ManagedObject) throws {
        checkConfinement()
        guard object.isDetached else {
            throw StrataError(
                .invalidObjectID, "\(object.objectID) already belongs to a context or was deleted",
                location: ["object": object.objectID.uriRepresentation])
        }
        let entity = try model.requireEntity(object.entity.name)
        guard entity.isSameDeclaration(as: object.entity) || entity == object.entity else {
            throw StrataError(
                .invalidModel,
                "entity '\(entity.name)' of \(object.objectID) is declared differently in this context's model",
                location: ["entity": entity.name])
        }
        precondition(
            object.relationshipValues.allSatisfy { $0.targets.isEmpty },
            "a detached object is inserted with empty relationships")
        // The object keeps its temporary ID (unique in the process), and gets its class's slot
        // map, as the objects this context makes do.
        if let binding = coordinator.classBinding(for: entity.name), binding.type == type(of: object) {
            object.slots = binding.slots
        }
        object.context = self
        object.state.isDetached = false
        willChange(object)
        noteInserted(object.objectID)
        sweepRegistryIfDue()
    }
}
