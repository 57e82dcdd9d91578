import StrataCore

/// The translations of `#Predicate`s, kept per shape: a fetch repeated with other constants
/// (`$0.key == key` in a loop) reads the constants out of its predicate and puts them into the
/// translation of the first predicate of its shape, instead of translating the expression tree
/// again.
///
/// A shape is kept only for predicates whose translation depends on their constants through
/// the operands they become (``PredicateShapeCondition``: comparisons, substring and membership
/// tests of key paths and constants, `&&`, `||`, `!`), and only after the first translation
/// shows that its value operands are exactly the predicate's constants, in order. Everything
/// else (arithmetic, `??`, Boolean constants in conditions, to-many counts) is translated each
/// time, as before.
///
/// One cache serves one set of naming hooks (a container's models); it is safe to use from any
/// thread.
package final class PredicateTranslationCache: @unchecked Sendable {
    // The hooks are pure functions of the container's schema; the entries are behind the lock.
    private let naming: (AnyKeyPath) -> String?
    private let isIdentifier: (AnyKeyPath) -> Bool
    private let objectID: (Any) throws -> ObjectID?
    private let entries = Locked<Entries>(Entries())

    /// At most this many shapes are kept; the cache starts over when it is full.
    static let capacity = 256

    private struct Entries {
        var byShape: [PredicateShape.Key: Entry] = [:]
        /// The shape found or added last, with its entry: a loop of fetches of one shape compares
        /// each shape with it (its key paths first by identity) instead of hashing the shape.
        var last: (key: PredicateShape.Key, entry: Entry)?
        var fullTranslations = 0
        var requests = 0

        /// The entry of `key`, if any.
        mutating func entry(for key: PredicateShape.Key) -> Entry? {
            if let last, last.key == key { return last.entry }
            guard let found = byShape[key] else { return nil }
            last = (key, found)
            return found
        }
    }

    private enum Entry {
        /// The translation of one predicate of the shape; its value operands are that predicate's
        /// constants.
        case template(ObjectPredicate, constantCount: Int)
        /// A shape whose translation depends on its constants in another way.
        case translatedEachTime
    }

    /// A cache for predicates translated with these hooks (see
    /// ``objectPredicate(_:naming:isIdentifier:objectID:)``); the hooks must give the same answer
    /// for the same key path or value every time.
    package init(
        naming: @escaping (AnyKeyPath) -> String?, isIdentifier: @escaping (AnyKeyPath) -> Bool,
        objectID: @escaping (Any) throws -> ObjectID? = { _ in nil }
    ) {
        self.naming = naming
        self.isIdentifier = isIdentifier
        self.objectID = objectID
    }

    /// How many predicates were translated in full (not from a kept shape): for tests.
    package var fullTranslationCount: Int { entries.withLock { $0.fullTranslations } }

    /// How many predicates the cache was asked for, translated in full or not: for tests.
    package var requestCount: Int { entries.withLock { $0.requests } }

    /// The translation of `predicate`, as ``objectPredicate(_:naming:isIdentifier:objectID:)``
    /// gives it.
    package func objectPredicate<Model>(for predicate: Predicate<Model>) throws -> ObjectPredicate {
        try translation(of: predicate).predicate
    }

    /// The translation of `predicate`, and its shape when the translation of every predicate of
    /// that shape is this one with the shape's constants filled in
    /// (``ObjectPredicate/replacingConstantOperands(with:)``).
    func translation<Model>(of predicate: Predicate<Model>) throws -> (
        predicate: ObjectPredicate, kept: PredicateShape?
    ) {
        guard let shape = Self.shape(of: predicate) else {
            entries.withLock { $0.requests += 1 }
            return (try translate(predicate), nil)
        }
        let entry = entries.withLock { entries in
            entries.requests += 1
            return entries.entry(for: shape.key)
        }
        switch entry {
        case .template(let template, let constantCount) where constantCount == shape.constants.count:
            return (template.replacingConstantOperands(with: shape.constants), shape)
        case .template, .translatedEachTime:
            return (try translate(predicate), nil)
        case nil:
            let translated = try translate(predicate)
            let keeps = translated.constantOperands == shape.constants && shape.key.parts.allSatisfy(namesAStep)
            entries.withLock { entries in
                if entries.byShape.count >= Self.capacity { entries.byShape.removeAll(keepingCapacity: true) }
                let entry: Entry =
                    keeps ? .template(translated, constantCount: shape.constants.count) : .translatedEachTime
                entries.byShape[shape.key] = entry
                entries.last = (shape.key, entry)
            }
            return (translated, keeps ? shape : nil)
        }
    }

    /// The shape of `predicate`, or nil when it has none a translation can be kept for.
    private static func shape<Model>(of predicate: Predicate<Model>) -> PredicateShape? {
        guard let condition = type(of: predicate.expression) as? any PredicateShapeCondition.Type else { return nil }
        return condition.shape(of: predicate.expression, root: predicate.variable.key)
    }

    /// Whether `part` is a key path step the translation names (a stored property or the
    /// identifier, so it becomes a key path operand, never a count or a condition), or not a
    /// key path.
    private func namesAStep(_ part: PredicateShape.Part) -> Bool {
        guard case .keyPath(let keyPath) = part else { return true }
        return naming(keyPath) != nil || isIdentifier(keyPath)
    }

    private func translate<Model>(_ predicate: Predicate<Model>) throws -> ObjectPredicate {
        entries.withLock { $0.fullTranslations += 1 }
        return try StrataData.objectPredicate(
            predicate, naming: naming, isIdentifier: isIdentifier, objectID: objectID)
    }
}
