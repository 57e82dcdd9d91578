/// The objects of a typed fetch, and whether the fetch checked, as it made or found each one,
/// that every one is exactly of one class: then ``cast(to:)`` hands the array over as an array
/// of that class, with no pass over the objects.
///
/// The one place a fetched array changes its element type unchecked. A fetch of 100,000
/// objects otherwise reads each object's class again to cast it and releases it once more with
/// the untyped array, two visits to objects that the loop over the results then visits a third
/// time (Benchmarks/README.md, "Fetch all: the values moved, the array cast once").
@usableFromInline
struct ObjectsOfClass {
    @usableFromInline
    let objects: [ManagedObject]
    /// The class every object is exactly an instance of, when ``isChecked``.
    @usableFromInline
    let type: ManagedObject.Type
    /// Whether the fetch found every object's class identical to ``type``; `false` when it did
    /// not look or one differs (a subclass, another entity's class).
    @usableFromInline
    let isChecked: Bool

    /// `objects`, which are all exactly of class `type` when `checked` (debug builds check it).
    init(_ objects: [ManagedObject], ofExactly type: ManagedObject.Type, checked: Bool) {
        assert(
            !checked || objects.allSatisfy { Swift.type(of: $0) == type },
            "objects said to be of exactly \(type) are not")
        self.objects = objects
        self.type = type
        self.isChecked = checked
    }

    /// The objects as `[T]`: the same array when every object is exactly a `T`, else each one
    /// cast (stopping the program at one that is not a `T`, naming it).
    @inlinable
    func cast<T: ManagedObject>(to: T.Type) -> [T] {
        if isChecked && type == T.self {
            // Every element is a reference to an instance of `T` exactly (checked above, as the
            // fetch made them), and an array of class references has one layout whatever the
            // class: the array is `[T]` as it is.
            return unsafeBitCast(objects, to: [T].self)
        }
        return objects.map {
            guard let typed = $0 as? T else { typedFetchFailure($0, expected: T.self) }
            return typed
        }
    }

    /// Stops the program: a typed fetch returned `object`, which is not a `T`.
    @usableFromInline
    func typedFetchFailure<T>(_ object: ManagedObject, expected: T.Type) -> Never {
        preconditionFailure("\(object.objectID) is not a \(T.self)")
    }
}
