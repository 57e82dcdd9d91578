/// The request shapes that passed ``PredicateValidator`` against one model: a fetch of a shape
/// seen before is marked checked without walking the model again, so a loop of lookups by key
/// checks its request once, not once a lookup.
///
/// A cache belongs to one model, and a shape names its entity, so a request for another model
/// or entity never finds an entry it did not earn. Only requests that passed are remembered;
/// one that fails is checked (and fails, with the full message) every time. The fields the
/// check reads by value (limit, offset, batch size, result type, temporary object IDs) are
/// checked on every call. At most ``capacity`` shapes are kept; the cache starts over when it
/// is full.
///
/// Thread-safe: one lock, held only to look a shape up or to add one.
package final class FetchRequestValidationCache: Sendable {
    /// The most shapes kept.
    package static let capacity = 256

    /// The model the requests are checked against.
    package let model: Model
    /// The shapes that passed, and the last one found (a loop repeats one shape: comparing
    /// with it costs no hashing).
    private let shapes = Locked<(passed: Set<FetchRequestValidationShape>, last: FetchRequestValidationShape?)>(
        ([], nil))

    /// An empty cache for checks against `model`.
    package init(model: Model) { self.model = model }

    /// `request` checked against ``model`` and marked as checked, as
    /// ``FetchRequest/validated(for:)`` does, walking the model only for a shape not seen before.
    ///
    /// - Throws: what ``FetchRequest/validated(for:)`` throws.
    package func validated(_ request: FetchRequest) throws -> FetchRequest {
        if request.isValidated(for: model) { return request }
        guard let shape = FetchRequestValidationShape(request) else { return try request.validated(for: model) }
        let known = shapes.withLock { shapes in
            if shapes.last == shape { return true }
            guard shapes.passed.contains(shape) else { return false }
            shapes.last = shape
            return true
        }
        if known {
            try PredicateValidator.validateValues(of: request)
            return request.markedValidated(for: model)
        }
        let checked = try request.validated(for: model)
        shapes.withLock { shapes in
            if shapes.passed.count >= Self.capacity { shapes.passed.removeAll(keepingCapacity: true) }
            shapes.passed.insert(shape)
            shapes.last = shape
        }
        return checked
    }

    /// How many shapes are remembered.
    package var count: Int { shapes.withLock { $0.passed.count } }
}
