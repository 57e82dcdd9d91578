/// What checking a fetch request against a model depends on, with the request's constants
/// reduced to their kinds: the key of a ``FetchRequestValidationCache``.
///
/// Of a constant, ``PredicateValidator`` reads only its kind (which case of ``Value``, `nil`
/// among them) and of an object ID only its entity, so two requests of one shape are valid or
/// invalid together against one model. The fields the check reads by value (limit, offset,
/// batch size, result type, object IDs) are not part of the shape: the cache checks them on
/// every call. A request whose check depends on more has no shape and is checked every time:
/// one with a `MATCHES` (its pattern must compile), or a predicate of more than
/// ``maximumTokens`` tokens (so that long `IN` lists do not make a shape per length).
package struct FetchRequestValidationShape: Hashable, Sendable {
    /// The most tokens a shape holds; a larger predicate has no shape.
    package static let maximumTokens = 64

    /// The two forms of a shape: a request of the most common form (a lookup) gets its shape
    /// without an allocation, a hash or a walk.
    private enum Form: Hashable, Sendable {
        /// One comparison of an attribute name with a constant (`key == 5`), no sorts, no
        /// properties to fetch: the comparison's modifier, operator and options in `code`, the
        /// constant's kind in `constant`.
        case comparison(entityName: String, key: String, code: UInt32, constant: UInt32)
        /// Anything else (see ``Walk``).
        case general(Walk)
    }

    /// A general request's shape: its predicate walked into tokens.
    fileprivate struct Walk: Hashable, Sendable {
        /// The entity fetched.
        var entityName: String
        /// The predicate's nodes and operands in a fixed order, as kinds and counts.
        var tokens: [UInt32] = []
        /// The names the tokens refer to, in order: key path components and object IDs' entities.
        var names: [String] = []
        /// The sorts, as given (they hold no constants).
        var sorts: [Sort]
        /// The properties to fetch, as given.
        var propertiesToFetch: [PropertyPath]
    }

    private var form: Form

    /// `request`'s shape, or `nil` when it has none (see ``FetchRequestValidationShape``).
    ///
    /// Complexity: O(n) in the predicate's nodes (at most ``maximumTokens``), without recursion;
    /// O(1) for one comparison of an attribute name with a constant.
    package init?(_ request: FetchRequest) {
        if request.sorts.isEmpty, request.propertiesToFetch.isEmpty, case .comparison(let c)? = request.predicate,
            c.op != .matches, case .keyPath(let path) = c.lhs, path.components.count == 1,
            case .constant(let value) = c.rhs
        {
            form = .comparison(
                entityName: request.entityName, key: path.components[0], code: Self.code(c),
                constant: Self.kind(of: value))
            return
        }
        var walk = Walk(
            entityName: request.entityName, sorts: request.sorts, propertiesToFetch: request.propertiesToFetch)
        if let predicate = request.predicate {
            guard walk.add(predicate) else { return nil }
        }
        form = .general(walk)
    }

    /// A part of a predicate still to visit.
    fileprivate enum Node {
        case predicate(ObjectPredicate)
        case operand(ObjectPredicate.Operand)
    }

    fileprivate enum Token {
        static let alwaysTrue: UInt32 = 1
        static let alwaysFalse: UInt32 = 2
        static let not: UInt32 = 3
        static let and: UInt32 = 4
        static let or: UInt32 = 5
        static let comparison: UInt32 = 6
        static let keyPath: UInt32 = 7
        static let count: UInt32 = 8
        static let constant: UInt32 = 9
        static let objectID: UInt32 = 10
        static let list: UInt32 = 11
        static let evaluatedObject: UInt32 = 12
    }

    /// A comparison's modifier, operator and options in one token.
    fileprivate static func code(_ c: ObjectPredicate.Comparison) -> UInt32 {
        let modifier: UInt32
        switch c.modifier {
        case .direct: modifier = 0
        case .any: modifier = 1
        case .all: modifier = 2
        case .none: modifier = 3
        }
        let op: UInt32
        switch c.op {
        case .equal: op = 0
        case .notEqual: op = 1
        case .less: op = 2
        case .lessOrEqual: op = 3
        case .greater: op = 4
        case .greaterOrEqual: op = 5
        case .beginsWith: op = 6
        case .endsWith: op = 7
        case .contains: op = 8
        case .like: op = 9
        case .matches: op = 10
        case .in: op = 11
        case .between: op = 12
        }
        return modifier | op << 2 | UInt32(c.options.rawValue) << 8
    }

    /// Which case of ``Value`` `value` is: all the validator reads of a constant.
    fileprivate static func kind(of value: Value) -> UInt32 {
        switch value {
        case .null: 0
        case .integer: 1
        case .double: 2
        case .float: 3
        case .decimal: 4
        case .string: 5
        case .bool: 6
        case .date: 7
        case .binary: 8
        case .uuid: 9
        case .uri: 10
        }
    }
}

extension FetchRequestValidationShape.Walk {
    fileprivate typealias Shape = FetchRequestValidationShape

    /// Appends `predicate`'s tokens in preorder (children last to first); `false` when it has
    /// no shape.
    mutating func add(_ predicate: ObjectPredicate) -> Bool {
        tokens.reserveCapacity(8)
        var pending: [Shape.Node] = [.predicate(predicate)]
        while let node = pending.popLast() {
            if tokens.count >= Shape.maximumTokens { return false }
            switch node {
            case .predicate(.alwaysTrue): tokens.append(Shape.Token.alwaysTrue)
            case .predicate(.alwaysFalse): tokens.append(Shape.Token.alwaysFalse)
            case .predicate(.not(let inner)):
                tokens.append(Shape.Token.not)
                pending.append(.predicate(inner))
            case .predicate(.and(let parts)):
                guard add(Shape.Token.and, parts, to: &pending) else { return false }
            case .predicate(.or(let parts)):
                guard add(Shape.Token.or, parts, to: &pending) else { return false }
            case .predicate(.comparison(let c)):
                if c.op == .matches { return false }
                tokens.append(Shape.Token.comparison)
                tokens.append(Shape.code(c))
                pending.append(.operand(c.rhs))
                pending.append(.operand(c.lhs))
            case .operand(.keyPath(let path)):
                add(Shape.Token.keyPath, path)
            case .operand(.count(let path)):
                add(Shape.Token.count, path)
            case .operand(.constant(let value)):
                tokens.append(Shape.Token.constant)
                tokens.append(Shape.kind(of: value))
            case .operand(.objectID(let id)):
                tokens.append(Shape.Token.objectID)
                names.append(id.entityName)
            case .operand(.list(let elements)):
                guard elements.count < Shape.maximumTokens else { return false }
                tokens.append(Shape.Token.list)
                tokens.append(UInt32(elements.count))
                for element in elements { pending.append(.operand(element)) }
            case .operand(.evaluatedObject):
                tokens.append(Shape.Token.evaluatedObject)
            }
        }
        return tokens.count <= Shape.maximumTokens
    }

    /// Appends an `AND` or `OR` of `parts` and queues the parts; `false` when there are too many.
    mutating func add(_ token: UInt32, _ parts: [ObjectPredicate], to pending: inout [Shape.Node]) -> Bool {
        guard parts.count < Shape.maximumTokens else { return false }
        tokens.append(token)
        tokens.append(UInt32(parts.count))
        for part in parts { pending.append(.predicate(part)) }
        return true
    }

    /// Appends a key path (or its `@count`).
    mutating func add(_ token: UInt32, _ path: PropertyPath) {
        tokens.append(token)
        tokens.append(UInt32(truncatingIfNeeded: path.components.count))
        names.append(contentsOf: path.components)
    }
}
