import Synchronization

/// Checks a fetch's predicate, sorts and properties against the model before any store sees them.
///
/// This is where an unknown key path, an operator on the wrong type, or a value of the wrong type
/// becomes a readable error naming the entity and the key, instead of an empty result or a store
/// error. The engine runs it once for every shape of fetch (see ``FetchRequestValidationCache``),
/// through ``FetchRequest/validated(for:)``.
public enum PredicateValidator {
    /// Called with every request ``validate(_:in:)`` checks, in the task that sets it, while
    /// ``observers`` is above zero: lets tests count how often a fetch is checked.
    @TaskLocal package static var requestObserver: (@Sendable (FetchRequest) -> Void)?
    /// How many tasks set ``requestObserver`` now; while none does, a check costs no task-local
    /// lookup.
    package static let observers = Atomic<Int>(0)

    /// Checks the whole request: its shape, entity, predicate, sorts and properties to fetch.
    public static func validate(_ request: FetchRequest, in model: Model) throws {
        if observers.load(ordering: .relaxed) != 0 { requestObserver?(request) }
        try request.validateShape()
        let entity = try model.requireEntity(request.entityName)
        if let predicate = request.predicate { try validate(predicate, for: entity, in: model) }
        for sort in request.sorts { try validateValuePath(sort.keyPath, for: entity, in: model, role: "sort key") }
        for path in request.propertiesToFetch {
            try validateValuePath(path, for: entity, in: model, role: "property to fetch")
        }
        try rejectTemporaryIDs(in: request)
    }

    /// Checks a request with no predicate, sorts or properties to fetch whose entity the caller
    /// already found in the model (a store that looked up its table): its shape and IDs, without
    /// looking the entity up again. The same errors as ``validate(_:in:)`` for such a request.
    package static func validatePlain(_ request: FetchRequest) throws {
        if observers.load(ordering: .relaxed) != 0 { requestObserver?(request) }
        assert(request.predicate == nil && request.sorts.isEmpty && request.propertiesToFetch.isEmpty)
        try request.validateShape()
        try rejectTemporaryIDs(in: request)
    }

    /// Checks what of `request` its ``FetchRequestValidationShape`` leaves out (limit, offset,
    /// batch size, result type, temporary object IDs), for a request whose shape passed
    /// ``validate(_:in:)`` before. Does not count as a check for ``requestObserver``.
    package static func validateValues(of request: FetchRequest) throws {
        try request.validateShape()
        try rejectTemporaryIDs(in: request)
    }

    private static func rejectTemporaryIDs(in request: FetchRequest) throws {
        if let ids = request.objectIDs, let other = ids.first(where: { $0.isTemporary }) {
            throw StrataError(
                .invalidObjectID, "a fetch cannot name the temporary ID \(other); save the object first",
                location: ["entity": request.entityName])
        }
    }

    /// Checks `predicate` against `entity`.
    ///
    /// - Throws: ``StrataError/Code/invalidPredicate`` also for a predicate nested deeper than
    ///   ``ObjectPredicate/maximumDepth``, checked first and without recursion.
    public static func validate(_ predicate: ObjectPredicate, for entity: Entity, in model: Model) throws {
        do {
            try predicate.checkDepth()
        } catch var error as StrataError {
            error.location["entity"] = entity.name
            throw error
        }
        try validateNested(predicate, for: entity, in: model)
    }

    private static func validateNested(_ predicate: ObjectPredicate, for entity: Entity, in model: Model) throws {
        switch predicate {
        case .alwaysTrue, .alwaysFalse: return
        case .not(let inner): try validateNested(inner, for: entity, in: model)
        case .and(let parts), .or(let parts): for part in parts { try validateNested(part, for: entity, in: model) }
        case .comparison(let c): try validate(c, for: entity, in: model)
        }
    }

    /// The static type of an operand.
    fileprivate indirect enum Kind {
        case attribute(AttributeType, name: String, many: Bool)
        case object(entity: String, name: String, many: Bool)
        case value(Value)
        case objectID(ObjectID)
        case list([Kind])
        case count

        var isMany: Bool {
            switch self {
            case .attribute(_, _, let many), .object(_, _, let many): return many
            default: return false
            }
        }
    }

    private static func validate(_ c: ObjectPredicate.Comparison, for entity: Entity, in model: Model) throws {
        let lhs = try kind(of: c.lhs, for: entity, in: model)
        let rhs = try kind(of: c.rhs, for: entity, in: model)
        func fail(_ message: String) -> StrataError {
            StrataError(.invalidPredicate, message, location: ["entity": entity.name, "key": describe(c.lhs)])
        }
        if c.modifier != .direct && !lhs.isMany {
            throw fail(
                "\(c.modifier.rawValue) needs a key path through a to-many relationship, but '\(describe(c.lhs))' of '\(entity.name)' reaches one value"
            )
        }
        if c.modifier == .direct && lhs.isMany && c.op != .contains {
            throw fail("'\(describe(c.lhs))' of '\(entity.name)' reaches many values: use ANY, ALL or NONE, or @count")
        }
        if case .list = lhs, c.op != .contains { throw fail("a list on the left only works with CONTAINS") }
        if rhs.isMany && c.op != .in {
            throw fail("'\(describe(c.rhs))' reaches many values: only IN accepts that on the right")
        }
        switch c.op {
        case .between:
            guard case .list(let bounds) = rhs, bounds.count == 2 else {
                throw fail("BETWEEN needs a list of two values: x BETWEEN {low, high}")
            }
            for bound in bounds { try checkComparable(lhs, bound, op: .lessOrEqual, fail: fail) }
        case .in:
            switch rhs {
            case .list(let members):
                for member in members {
                    // The usual member, a value an attribute can hold, passes without the full check.
                    if case .attribute(let type, _, _) = lhs, case .value(let value) = member,
                        value.isNull || compatible(type, value)
                    {
                        continue
                    }
                    try checkComparable(lhs, member, op: .equal, fail: fail)
                }
            case .attribute(_, _, true), .object(_, _, true):
                try checkComparable(lhs, rhs.single, op: .equal, fail: fail)
            default: try checkComparable(lhs, rhs, op: .contains, fail: fail)
            }
        case .contains where lhs.isMany || isList(lhs):
            try checkComparable(lhs.single, rhs, op: .equal, fail: fail)
        default:
            try checkComparable(lhs, rhs, op: c.op, fail: fail)
        }
        if c.op == .matches, case .value(.string(let pattern)) = rhs {
            do {
                _ = try StringMatching.compiledRegex(pattern, caseInsensitive: c.options.contains(.caseInsensitive))
            } catch var error as StrataError {
                error.location["entity"] = entity.name
                error.location["key"] = describe(c.lhs)
                throw error
            }
        }
    }

    private static func isList(_ kind: Kind) -> Bool {
        if case .list = kind { return true }
        return false
    }

    private static func checkComparable(
        _ lhs: Kind, _ rhs: Kind, op: ObjectPredicate.Operator, fail: (String) -> StrataError
    ) throws {
        // Switches, not array literals: this runs once per member of an IN list.
        let isStringOp: Bool
        let isOrdering: Bool
        switch op {
        case .beginsWith, .endsWith, .contains, .like, .matches: (isStringOp, isOrdering) = (true, false)
        case .less, .lessOrEqual, .greater, .greaterOrEqual: (isStringOp, isOrdering) = (false, true)
        default: (isStringOp, isOrdering) = (false, false)
        }
        switch (lhs.single, rhs.single) {
        case (.object(let entity, let name, _), let other), (let other, .object(let entity, let name, _)):
            guard op == .equal || op == .notEqual || op == .contains else {
                throw fail("'\(name)' is a relationship: compare it with == or != or IN")
            }
            switch other {
            case .value(.null), .object: return
            case .objectID(let id) where id.entityName == entity: return
            case .objectID(let id): throw fail("'\(name)' holds \(entity) objects, not \(id.entityName)")
            case .list(let members): for m in members { try checkComparable(lhs, m, op: .equal, fail: fail) }
            default: throw fail("'\(name)' is a relationship to \(entity): compare it with an object ID or nil")
            }
        case (.attribute(let type, let name, _), let other), (let other, .attribute(let type, let name, _)):
            if isStringOp && type != .string {
                throw fail("\(op.rawValue) applies to strings, but '\(name)' is a \(type.rawValue)")
            }
            if isOrdering && [.binary, .uuid, .uri].contains(type) {
                throw fail("'\(name)' is a \(type.rawValue), which has no order: use == or !=")
            }
            switch other {
            case .value(let value):
                if !value.isNull && !compatible(type, value) {
                    throw fail(
                        "'\(name)' is a \(type.rawValue) and cannot be compared with \(value) (\(value.typeName))")
                }
            case .attribute(let otherType, let otherName, _):
                if !(type == otherType || (type.isNumeric && otherType.isNumeric)) {
                    throw fail(
                        "'\(name)' (\(type.rawValue)) cannot be compared with '\(otherName)' (\(otherType.rawValue))")
                }
            case .objectID, .object: throw fail("'\(name)' is an attribute and cannot be compared with an object")
            case .count:
                if !type.isNumeric { throw fail("'\(name)' is a \(type.rawValue) and cannot be compared with a count") }
            case .list(let members): for m in members { try checkComparable(lhs, m, op: op, fail: fail) }
            }
        case (.count, .value(let value)), (.value(let value), .count):
            if !value.isNull && !ValueComparison.isNumber(value) {
                throw fail("@count is a number and cannot be compared with \(value)")
            }
        default:
            return
        }
    }

    private static func compatible(_ type: AttributeType, _ value: Value) -> Bool {
        if type.isNumeric { return ValueComparison.isNumber(value) }
        switch (type, value) {
        case (.string, .string), (.boolean, .bool), (.date, .date), (.binary, .binary), (.uuid, .uuid), (.uri, .uri):
            return true
        default: return false
        }
    }

    private static func kind(of operand: ObjectPredicate.Operand, for entity: Entity, in model: Model) throws -> Kind {
        switch operand {
        case .constant(let value): return .value(value)
        case .objectID(let id): return .objectID(id)
        case .evaluatedObject: return .object(entity: entity.name, name: "SELF", many: false)
        case .list(let members): return .list(try members.map { try kind(of: $0, for: entity, in: model) })
        case .keyPath(let path): return try kind(of: path, for: entity, in: model)
        case .count(let path):
            guard try kind(of: path, for: entity, in: model).isMany else {
                throw StrataError(
                    .invalidPredicate,
                    "'\(path).@count' needs a key path through a to-many relationship of '\(entity.name)'",
                    location: ["entity": entity.name, "key": path.description])
            }
            return .count
        }
    }

    private static func kind(of path: PropertyPath, for entity: Entity, in model: Model) throws -> Kind {
        var current = entity
        var many = false
        for (i, key) in path.components.enumerated() {
            let isLast = i == path.components.count - 1
            if let attribute = current.attribute(named: key) {
                guard isLast else {
                    throw StrataError(
                        .unknownKey, "'\(path)' continues past the attribute '\(current.name).\(key)'",
                        location: ["entity": current.name, "key": path.description])
                }
                return .attribute(attribute.type, name: path.description, many: many)
            }
            guard let relationship = current.relationship(named: key) else {
                let known = (current.attributes.map(\.name) + current.relationships.map(\.name)).sorted().joined(
                    separator: ", ")
                throw StrataError(
                    .unknownKey, "'\(current.name)' has no property '\(key)' (in key path '\(path)'); it has: \(known)",
                    location: ["entity": current.name, "key": key])
            }
            many = many || relationship.isToMany
            current = try model.requireEntity(relationship.destination)
            if isLast { return .object(entity: current.name, name: path.description, many: many) }
        }
        throw StrataError(.unknownKey, "an empty key path on '\(entity.name)'", location: ["entity": entity.name])
    }

    private static func validateValuePath(_ path: PropertyPath, for entity: Entity, in model: Model, role: String)
        throws
    {
        switch try kind(of: path, for: entity, in: model) {
        case .attribute(_, _, false): return
        default:
            throw StrataError(
                .invalidRequest,
                "the \(role) '\(path)' of '\(entity.name)' must lead through to-one relationships to an attribute",
                location: ["entity": entity.name, "key": path.description])
        }
    }

    private static func describe(_ operand: ObjectPredicate.Operand) -> String {
        switch operand {
        case .keyPath(let p): return p.description
        case .count(let p): return "\(p).@count"
        case .constant(let v): return v.description
        case .objectID(let id): return id.description
        case .list: return "{...}"
        case .evaluatedObject: return "SELF"
        }
    }
}

extension PredicateValidator.Kind {
    /// The same kind seen as one element (a to-many path's element type).
    fileprivate var single: PredicateValidator.Kind {
        switch self {
        case .attribute(let t, let n, _): return .attribute(t, name: n, many: false)
        case .object(let e, let n, _): return .object(entity: e, name: n, many: false)
        default: return self
        }
    }
}
