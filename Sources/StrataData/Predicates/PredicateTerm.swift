import StrataCore

/// What one subexpression of a `#Predicate` translates to, before it becomes part of an
/// ``ObjectPredicate``: a condition, a key path, a count, or a Swift constant.
indirect enum PredicateTerm {
    /// A condition (an expression of type `Bool` over stored properties).
    case predicate(ObjectPredicate)
    /// A key path, as property names from the evaluated object (or, first, the marker of a
    /// sequence element; see ``PredicateTranslator/elementMarker(_:)``). No components: the
    /// object itself.
    case path([String])
    /// The number of targets of a to-many key path.
    case count([String])
    /// A value that reads no stored property, already evaluated (a captured variable, a literal,
    /// arithmetic on them).
    case constant(Any)
    /// `value ?? fallback`: `value` where it is not nil, `fallback` where it is.
    case coalesced(PredicateTerm, fallback: PredicateTerm)
    /// An optional condition, nil where `guardPath` is nil (`$0.trip.flatMap { $0.days > 3 }`);
    /// never nil with an empty `guardPath` (through an optional to-many, which Strata keeps empty,
    /// not nil).
    case optionalPredicate(guardPath: [String], ObjectPredicate)
}

extension PredicateTerm {
    /// A short name of the term's kind, for error messages.
    var kindName: String {
        switch self {
        case .predicate: return "a condition"
        case .path: return "a key path"
        case .count: return "a count"
        case .constant: return "a constant"
        case .coalesced: return "a '??' expression"
        case .optionalPredicate: return "an optional condition"
        }
    }
}
