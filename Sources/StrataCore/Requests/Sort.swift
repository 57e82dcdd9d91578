/// One sort key of a fetch: a key path, a direction, and string options.
///
/// Ordering rules, the same on every store: ``Value/null`` sorts before every value when
/// ascending (after, when descending); numbers compare numerically across integer, float,
/// double and decimal; strings by Unicode scalar values (after folding, with options); dates
/// chronologically; `false` before `true`. Ties, and fetches with no sort at all, are broken by
/// primary key, ascending, so every store returns the same order.
public struct Sort: Sendable, Hashable {
    /// The attribute, or a path through to-one relationships to an attribute.
    public var keyPath: PropertyPath
    /// Whether smaller values come first.
    public var ascending: Bool
    /// `caseInsensitive` and/or `diacriticInsensitive` for strings.
    public var options: ObjectPredicate.Options

    /// Creates a sort key.
    public init(_ keyPath: PropertyPath, ascending: Bool = true, options: ObjectPredicate.Options = []) {
        self.keyPath = keyPath
        self.ascending = ascending
        self.options = options
    }

    /// An ascending sort on `keyPath`.
    public static func ascending(_ keyPath: PropertyPath, options: ObjectPredicate.Options = []) -> Sort {
        Sort(keyPath, ascending: true, options: options)
    }

    /// A descending sort on `keyPath`.
    public static func descending(_ keyPath: PropertyPath, options: ObjectPredicate.Options = []) -> Sort {
        Sort(keyPath, ascending: false, options: options)
    }
}
