extension FetchRequest {
    /// This request, checked against `model` by ``PredicateValidator`` and marked as checked; the
    /// request itself, unchecked again, when it already carries the mark for a model of the same
    /// ``Model/versionHash``.
    ///
    /// Call it first in a ``PersistentStore/fetch(_:)`` of your own: a request that the engine
    /// (or another store on the way) already checked is not checked again, and one built by a
    /// caller and passed straight to the store is checked once. Changing any field of the result
    /// drops the mark.
    ///
    /// - Throws: ``StrataError/Code/unknownEntity``, ``StrataError/Code/unknownKey``,
    ///   ``StrataError/Code/invalidPredicate``, ``StrataError/Code/invalidRequest`` or
    ///   ``StrataError/Code/invalidObjectID`` for a request that does not fit `model`.
    public func validated(for model: Model) throws -> FetchRequest {
        if isValidated(for: model) { return self }
        try PredicateValidator.validate(self, in: model)
        var checked = self
        checked.validation = FetchRequestValidation(modelHash: model.versionHash)
        return checked
    }

    /// Whether ``validated(for:)`` checked this request against a model like `model` and no
    /// field changed since.
    package func isValidated(for model: Model) -> Bool {
        validation.modelHash == model.versionHash
    }

    /// Checks this request against `model` unless it carries the mark for it, without making a
    /// marked copy: for a store's fetch, which passes the request on to nothing that checks.
    ///
    /// A store that already found the request's entity among its own tables says so with
    /// `entityIsKnown`: a plain request (no predicate, sorts or properties to fetch, as a fetch
    /// by ID is) is then checked without looking the entity up in the model a second time.
    package func checkUnlessValidated(for model: Model, entityIsKnown: Bool = false) throws {
        if isValidated(for: model) { return }
        if entityIsKnown && predicate == nil && sorts.isEmpty && propertiesToFetch.isEmpty {
            try PredicateValidator.validatePlain(self)
        } else {
            try PredicateValidator.validate(self, in: model)
        }
    }

    /// This request marked as checked against `model`, without checking it: for a request that
    /// ``checkUnlessValidated(for:)`` just passed.
    package func markedValidated(for model: Model) -> FetchRequest {
        var marked = self
        marked.validation = FetchRequestValidation(modelHash: model.versionHash)
        return marked
    }

    /// This request with `change` applied, keeping the mark of ``validated(for:)``: for changes
    /// that only drop conditions from a checked request (its predicate, sorts, limit, offset, or
    /// a result type reduced to snapshots), which cannot make it invalid.
    package func keepingValidation(_ change: (inout FetchRequest) -> Void) -> FetchRequest {
        var changed = self
        change(&changed)
        changed.validation = validation
        return changed
    }
}

/// The mark ``FetchRequest/validated(for:)`` leaves on a request: the version hash of the model
/// it was checked against. It takes no part in the request's equality or hash.
package struct FetchRequestValidation: Sendable, Hashable {
    /// A request nothing checked yet.
    package static let unchecked = FetchRequestValidation(modelHash: nil)

    /// The ``Model/versionHash`` of the model the request was checked against.
    package var modelHash: String?

    package init(modelHash: String?) { self.modelHash = modelHash }

    package static func == (lhs: FetchRequestValidation, rhs: FetchRequestValidation) -> Bool { true }
    package func hash(into hasher: inout Hasher) {}
}
