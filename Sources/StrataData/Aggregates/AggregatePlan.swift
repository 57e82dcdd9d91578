import Foundation
import StrataCore
import StrataEngine

/// The engine's request for aggregates of `Model`: each aggregate and group key a column of
/// its own (`a0`, `a1`, ... and `k0`, ...), the predicate and the having condition translated.
struct AggregatePlan<Model: PersistentModel> {
    var request: AggregateRequest
    var options: FetchOptions
    /// The columns, with their names in the engine's result dictionaries.
    private var names: [AggregateColumn: String] = [:]

    /// - Throws: ``StrataError/Code/invalidRequest`` for a key path that is not a stored
    ///   property of `Model` (naming it), ``StrataError/Code/invalidPredicate`` for a predicate
    ///   with no Strata counterpart.
    init(
        aggregates: [AggregateColumn], groupBy: [AnyKeyPath], having: AggregateCondition<Model>? = nil,
        sortBy: [AggregateSortDescriptor<Model>] = [], predicate: Predicate<Model>?, includePendingChanges: Bool,
        keyPaths: ModelKeyPaths
    ) throws {
        let entity = entityName(of: Model.self)
        request = AggregateRequest(entityName: entity)
        options = FetchOptions(includesPendingChanges: includePendingChanges)
        if let predicate {
            request.predicate = try keyPaths.predicates.objectPredicate(for: predicate)
        }
        func path(_ keyPath: AnyKeyPath, in column: AggregateColumn) throws -> PropertyPath {
            guard let name = keyPaths.name(of: keyPath) else {
                let role = column.function == .value ? "group by" : "compute \(column.function) of"
                throw StrataError(
                    .invalidRequest,
                    "cannot \(role) \(keyPath): it is not a stored property of \(entity) "
                        + "(it is transient, computed, or reads through a relationship)",
                    location: ["entity": entity, "keyPath": "\(keyPath)", "function": "\(column.function)"])
            }
            return PropertyPath(name)
        }
        let sorted = sortBy.map(\.column).filter { $0.function != .value }
        for column in aggregates + (having?.columns ?? []) + sorted where names[column] == nil {
            let name = "a\(names.count)"
            names[column] = name
            request.propertiesToFetch.append(
                AggregateProperty(
                    name: name, function: column.function, keyPath: try column.keyPath.map { try path($0, in: column) })
            )
        }
        for keyPath in groupBy {
            let column = AggregateColumn.groupKey(keyPath)
            guard names[column] == nil else { continue }
            let name = "k\(request.propertiesToGroupBy.count)"
            names[column] = name
            let property = try path(keyPath, in: column)
            request.propertiesToGroupBy.append(property)
            request.propertiesToFetch.append(.value(property, as: name))
        }
        if let having { request.havingPredicate = having.predicate { names[$0] ?? "" } }
        for sort in sortBy {
            guard let name = names[sort.column] else {
                throw StrataError(
                    .invalidRequest,
                    "cannot sort groups of \(entity) by \(sort.column.keyPath.map { "\($0)" } ?? ""): "
                        + "it is not one of the group keys",
                    location: ["entity": entity, "keyPath": sort.column.keyPath.map { "\($0)" } ?? ""])
            }
            request.sorts.append(Sort(PropertyPath(name), ascending: sort.order == .forward))
        }
    }

    /// The groups of the engine's result dictionaries.
    func groups(_ rows: [[String: StrataCore.Value]]) -> [AggregateGroup<Model>] {
        rows.map { row in AggregateGroup(values: names.mapValues { row[$0] ?? .null }) }
    }
}
