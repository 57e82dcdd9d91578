import StrataCore

extension ManagedObject {
    /// The value of attribute `key`.
    ///
    /// Reading or writing a key the entity does not have, or writing a value of the wrong type,
    /// is a programmer's mistake and stops the program with a message naming the entity, key and
    /// value. Use ``value(for:)`` and ``set(_:for:)`` to get a ``StrataError`` instead.
    public subscript(key: String) -> Value {
        get {
            do { return try value(for: key) } catch { preconditionFailure("\(error)") }
        }
        set {
            do { try set(newValue, for: key) } catch { preconditionFailure("\(error)") }
        }
    }

    /// The value of attribute `key`.
    ///
    /// - Throws: ``StrataError/Code/unknownKey`` when the entity has no such attribute.
    public func value(for key: String) throws -> Value {
        checkConfinement()
        let index = try attributeIndex(key)
        fulfill()
        return attributeValues[index]
    }

    /// The value of attribute `key` as `T` (`Double?` reads a nil as `nil`).
    ///
    /// - Throws: ``StrataError/Code/unknownKey``, or ``StrataError/Code/typeMismatch`` when the
    ///   value is not a `T`.
    ///
    /// Inlinable, so that the conversion from ``Value`` is compiled for the caller's type: a
    /// generic call would look up the metadata of `T?` at run time on every read.
    @inlinable
    public func value<T: ValueConvertible>(for key: String, as type: T.Type) throws -> T {
        let value = try value(for: key)
        guard let typed = T(strataValue: value) else {
            throw StrataError(
                .typeMismatch, "\(objectID).\(key) holds \(value) (\(value.typeName)), not a \(T.self)",
                location: ["entity": entity.name, "key": key])
        }
        return typed
    }

    /// Sets attribute `key` to `value`.
    ///
    /// - Throws: ``StrataError/Code/unknownKey``, or ``StrataError/Code/typeMismatch`` when the
    ///   value does not fit the attribute's type (an `Int16` attribute refuses 40,000). Nothing
    ///   changes when it throws. A `nil` for a required attribute is accepted here and reported at
    ///   save, as Core Data does, so an object can be filled in any order.
    ///
    /// Inlinable, so that the conversion to ``Value`` is compiled for the caller's type; the
    /// write itself is the overload that takes a ``Value``.
    @inlinable
    public func set(_ value: some ValueConvertible, for key: String) throws {
        try set(value.strataValue, for: key)
    }

    /// Sets attribute `key` to `value`, a ``Value``: what the generic `set(_:for:)` does once the
    /// value is converted.
    ///
    /// - Throws: ``StrataError/Code/unknownKey``, or ``StrataError/Code/typeMismatch`` when the
    ///   value does not fit the attribute's type. Nothing changes when it throws.
    public func set(_ value: Value, for key: String) throws {
        checkConfinement("set(_:for:)")
        try set(value, atAttributeIndex: try attributeIndex(key))
    }

    /// Sets the attribute at `index` of the entity to `newValue`: what ``set(_:for:)`` does once
    /// the key is found, and what the typed slot API does with the slot's index.
    @inline(__always)
    func set(_ newValue: Value, atAttributeIndex index: Int) throws {
        // The type alone, not a copy of the whole attribute: this runs for every value written.
        let type = entity.attributeType(at: index)
        guard newValue.fits(type) else {
            let key = entity.attributes[index].name
            throw StrataError(
                .typeMismatch,
                "\(objectID): '\(entity.name).\(key)' is a \(type.rawValue) and cannot hold \(newValue) (\(newValue.typeName))",
                location: ["entity": entity.name, "key": key])
        }
        let state = self.state
        let slot = ChangeSet.slot(ofAttribute: index)
        // An object already changed since its last save is in its context's change set, which
        // marks it invalid if the context goes away: unless its context is saving (its journal
        // must hear of every change) or observed by live queries (flagged in the object's own
        // state, see ``SaveActivity``), or this attribute is the first of the object's to change
        // (the change set keeps which ones did, for fetches), the write needs nothing from the
        // context, so the weak reference to it is not loaded.
        if state.isWritableWithoutContext && changedSlots & slot != 0 {
            SaveActivity.checkContextNotNeeded(by: self)
            attributeValues[index] = newValue
            return
        }
        let context = try writableContext(state)
        if state.isFault { context.fireFault(self) }
        if attributeValues[index] == newValue { return }
        // A dirty object is already tracked, with this attribute among its changes once it was
        // written; only a save in progress, or live queries, need to hear of every change.
        if !state.isDirty || changedSlots & slot == 0 || context.journal != nil || context.liveRegistry != nil {
            context.willChange(self, slots: slot)
        }
        attributeValues[index] = newValue
        self.state.isDirty = true
        self.state.writesNeedContext = context.needsEveryWrite
    }

    func attributeIndex(_ key: String) throws -> Int {
        guard let index = entity.attributeIndex(named: key) else {
            let hint = entity.relationshipIndex(named: key) != nil ? "; it is a relationship" : ""
            throw StrataError(
                .unknownKey, "'\(entity.name)' has no attribute '\(key)'\(hint)",
                location: ["entity": entity.name, "key": key])
        }
        return index
    }

    func checkWritable() throws {
        _ = try writableContext(state)
    }

    /// The object's context, when the object may be changed (`state` is the object's state).
    ///
    /// - Throws: ``StrataError/Code/invalidObjectID`` for an object that left its context or was
    ///   deleted.
    @inline(__always)
    func writableContext(_ state: State) throws -> ObjectContext {
        guard !state.isInvalid, let context else {
            throw StrataError(
                .invalidObjectID,
                "\(objectID) no longer belongs to a context (it was reset, rolled back or its context is gone)",
                location: ["object": objectID.uriRepresentation])
        }
        if state.isDeleted {
            throw StrataError(
                .invalidObjectID, "\(objectID) is deleted; changes to it would be lost",
                location: ["object": objectID.uriRepresentation])
        }
        return context
    }
}
