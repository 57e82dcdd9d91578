/// An ``AggregateRequest`` checked against a model: each column's attribute and result type, the
/// group keys, and the model the having predicate is checked and evaluated against. Built once
/// per fetch by ``AggregateRequest/layout(in:)``; stores translating aggregates read it.
package struct AggregateLayout: Sendable {
    /// One column of the result.
    package struct Column: Sendable {
        /// The column as requested.
        package var property: AggregateProperty
        /// The type of the attribute read; `nil` for a count of objects.
        package var sourceType: AttributeType?
        /// The type of the values in the result.
        package var resultType: AttributeType
    }

    /// The request's entity.
    package var entity: Entity
    /// The columns, in the request's order.
    package var columns: [Column]
    /// The group keys with their attribute types.
    package var groupKeys: [(path: PropertyPath, type: AttributeType)]
    /// A model of one entity, ``resultEntityName``, whose attributes are the columns that can be
    /// named in a predicate; the having predicate is checked and evaluated against it.
    package var resultModel: Model
    /// The entity of ``resultModel``.
    package static let resultEntityName = "AggregateResult"
}

extension AggregateRequest {
    /// Checks the request against `model`.
    ///
    /// - Throws: ``StrataError/Code/unknownEntity`` or ``StrataError/Code/unknownKey`` for a name
    ///   the model lacks (a column, group key, having or sort key), ``StrataError/Code/invalidRequest``
    ///   for a path through a to-many relationship, a sum or average of a value that is not a number,
    ///   a minimum or maximum of an unordered type, a plain column that is not a group key of a
    ///   grouped request, duplicate or empty column names, or a negative limit or offset;
    ///   ``StrataError/Code/invalidPredicate`` for a predicate that does not fit.
    public func validate(for model: Model) throws {
        _ = try layout(in: model)
    }

    /// The checked layout of this request (see ``validate(for:)``).
    package func layout(in model: Model) throws -> AggregateLayout {
        let entity = try model.requireEntity(entityName)
        func fail(_ message: String, key: String? = nil) -> StrataError {
            var location = ["entity": entityName]
            if let key { location["key"] = key }
            return StrataError(.invalidRequest, message, location: location)
        }
        if let limit, limit < 0 { throw fail("aggregate fetch limit \(limit) is negative") }
        if offset < 0 { throw fail("aggregate fetch offset \(offset) is negative") }
        if propertiesToFetch.isEmpty { throw fail("an aggregate fetch needs properties to fetch") }
        if let predicate { try PredicateValidator.validate(predicate, for: entity, in: model) }
        if let ids = objectIDs, let other = ids.first(where: { $0.isTemporary }) {
            throw StrataError(
                .invalidObjectID, "an aggregate fetch cannot name the temporary ID \(other); save the object first",
                location: ["entity": entityName])
        }
        var groupKeys: [(path: PropertyPath, type: AttributeType)] = []
        for path in propertiesToGroupBy {
            groupKeys.append((path, try Self.attributeType(at: path, of: entity, in: model, role: "group key")))
        }
        let grouped = isGrouped
        var columns: [AggregateLayout.Column] = []
        var names: Set<String> = []
        for property in propertiesToFetch {
            if property.name.isEmpty { throw fail("an aggregate column has an empty name") }
            if !names.insert(property.name).inserted {
                throw fail("two aggregate columns are named '\(property.name)'", key: property.name)
            }
            columns.append(try column(for: property, entity: entity, model: model, grouped: grouped))
        }
        let resultModel = try Self.resultModel(for: columns, entityName: entityName)
        let resultEntity = try resultModel.requireEntity(AggregateLayout.resultEntityName)
        if let havingPredicate {
            do {
                try PredicateValidator.validate(havingPredicate, for: resultEntity, in: resultModel)
            } catch var error as StrataError {
                error.location["entity"] = entityName
                error.location["role"] = "having predicate"
                throw error
            }
        }
        for sort in sorts {
            guard sort.keyPath.components.count == 1, names.contains(sort.keyPath.description) else {
                throw StrataError(
                    .unknownKey,
                    "the sort key '\(sort.keyPath)' is not a column of the aggregate fetch of '\(entityName)'",
                    location: ["entity": entityName, "key": sort.keyPath.description])
            }
        }
        return AggregateLayout(entity: entity, columns: columns, groupKeys: groupKeys, resultModel: resultModel)
    }

    private func column(for property: AggregateProperty, entity: Entity, model: Model, grouped: Bool) throws
        -> AggregateLayout.Column
    {
        let function = property.function
        guard let path = property.keyPath else {
            guard function == .count else {
                throw StrataError(
                    .invalidRequest, "the \(function) column '\(property.name)' of '\(entityName)' needs a key path",
                    location: ["entity": entityName, "key": property.name])
            }
            return AggregateLayout.Column(property: property, sourceType: nil, resultType: .integer64)
        }
        let type = try Self.attributeType(at: path, of: entity, in: model, role: "\(function) column")
        func refuse(_ what: String) -> StrataError {
            StrataError(
                .invalidRequest,
                "the \(function) of '\(path)' of '\(entityName)' is not defined: it is \(what)",
                location: ["entity": entityName, "key": path.description, "type": type.rawValue])
        }
        switch function.kind {
        case .value:
            if grouped && !propertiesToGroupBy.contains(path) {
                throw StrataError(
                    .invalidRequest,
                    "the column '\(property.name)' of '\(entityName)' reads '\(path)', which is not a group key",
                    location: ["entity": entityName, "key": path.description])
            }
            return AggregateLayout.Column(property: property, sourceType: type, resultType: type)
        case .count:
            return AggregateLayout.Column(property: property, sourceType: type, resultType: .integer64)
        case .sum, .average:
            let resultType: AttributeType
            switch type {
            case .integer16, .integer32, .integer64: resultType = function == .sum ? .integer64 : .double
            case .double, .float: resultType = .double
            case .decimal: resultType = function == .sum ? .decimal : .double
            default: throw refuse("a \(type.rawValue), not a number")
            }
            return AggregateLayout.Column(property: property, sourceType: type, resultType: resultType)
        case .minimum, .maximum:
            switch type {
            case .binary, .uuid, .uri: throw refuse("a \(type.rawValue), which has no order in predicates")
            default: return AggregateLayout.Column(property: property, sourceType: type, resultType: type)
            }
        }
    }

    /// The type of the attribute `path` reaches from `entity` through to-one relationships.
    package static func attributeType(at path: PropertyPath, of entity: Entity, in model: Model, role: String) throws
        -> AttributeType
    {
        var current = entity
        for (index, component) in path.components.enumerated() {
            let isLast = index == path.components.count - 1
            if let attribute = current.attribute(named: component) {
                if isLast { return attribute.type }
                break
            }
            guard let relationship = current.relationship(named: component) else {
                throw StrataError(
                    .unknownKey, "'\(current.name)' has no property '\(component)' (in the \(role) '\(path)')",
                    location: ["entity": entity.name, "key": path.description])
            }
            if relationship.isToMany {
                throw StrataError(
                    .invalidRequest,
                    "the \(role) '\(path)' of '\(entity.name)' passes through the to-many relationship '\(component)'",
                    location: ["entity": entity.name, "key": path.description])
            }
            if isLast { break }
            current = try model.requireEntity(relationship.destination)
        }
        throw StrataError(
            .invalidRequest,
            "the \(role) '\(path)' of '\(entity.name)' must lead through to-one relationships to an attribute",
            location: ["entity": entity.name, "key": path.description])
    }

    /// A model whose one entity has an optional attribute per column with a plain name.
    private static func resultModel(for columns: [AggregateLayout.Column], entityName: String) throws -> Model {
        let attributes = columns.filter { isPlainName($0.property.name) }.map {
            Attribute($0.property.name, $0.resultType, isOptional: true)
        }
        do {
            return try Model(entities: [Entity(AggregateLayout.resultEntityName, attributes: attributes)])
        } catch var error as StrataError {
            error.code = .invalidRequest
            error.location["entity"] = entityName
            throw error
        }
    }

    private static func isPlainName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy {
            $0 == "_" || ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
        }
    }
}
