/// The storage `@Model` gives a model for its backing object: the object, held strongly.
///
/// The object points back at its model without a reference count (a weak reference would give
/// every model a side allocation and atomic loads on every lookup), so that pointer must never
/// outlive the model: this storage clears it when the model goes (its `deinit`), and when the
/// model is given another object.
public struct _ModelBackingStorage<Model: PersistentModel>: ~Copyable {
    /// The backing object; `nil` until a model made by its own initializer first needs it.
    public var backing: BackingData<Model>?

    /// No backing object yet.
    @inlinable
    public init() { backing = nil }

    /// Makes `model` be backed by `newBacking`, releasing the object it had.
    public mutating func replace(with newBacking: BackingData<Model>, for model: Model) {
        if let backing, backing.model === model { backing.model = nil }
        backing = newBacking
    }

    deinit {
        // The model is going: its object must not point at it any more. (Were it backed by an
        // object another instance backs too, which only a hand-made `init(backingData:)` can
        // do, that object simply makes a new model when asked.)
        backing?.model = nil
    }
}
