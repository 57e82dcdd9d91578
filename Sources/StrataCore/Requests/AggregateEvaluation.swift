import Foundation

/// Runs an ``AggregateRequest`` over snapshots in memory: the reference semantics of aggregates
/// (see ``AggregateFunction`` and ``AggregateRequest``), and the answer for every store that does
/// not compute aggregates itself.
public enum AggregateEvaluation {
    /// Answers `request` from `candidates` (snapshots of the request's entity; the request's IDs
    /// and predicate are applied here), following relationships through `evaluator`.
    ///
    /// Complexity: O(n) predicate evaluations plus O(n log n) comparisons to form the groups.
    ///
    /// - Throws: the errors of ``AggregateRequest/validate(for:)``, and
    ///   ``StrataError/Code/arithmeticOverflow`` for a sum of integers beyond `Int64`.
    public static func run(_ request: AggregateRequest, over candidates: [Snapshot], evaluator: PredicateEvaluator)
        throws -> [[String: Value]]
    {
        let layout = try request.layout(in: evaluator.model)
        var matching = candidates
        if let ids = request.objectIDs {
            let wanted = Set(ids)
            matching = matching.filter { wanted.contains($0.objectID) }
        }
        if let predicate = request.predicate {
            try predicate.checkDepth()
            matching = try matching.filter { try evaluator.evaluate(predicate, on: $0) }
        }
        matching.sort { $0.objectID < $1.objectID }
        var rows: [[Value]]
        if request.isGrouped {
            let keys = layout.groupKeys.map(\.path)
            rows = try groups(of: matching, by: keys, evaluator: evaluator).map { group in
                try layout.columns.map {
                    try value(of: $0, over: group, evaluator: evaluator, entity: request.entityName)
                }
                    + keys.map { key in try group.first.map { try evaluator.value(at: key, of: $0) } ?? .null }
            }
        } else {
            rows = try matching.map { snapshot in
                try layout.columns.map { column in
                    guard let path = column.property.keyPath else { return .integer(1) }
                    return try evaluator.value(at: path, of: snapshot)
                }
            }
        }
        return try finish(rows, of: request, layout: layout)
    }

    /// Turns computed rows into the answer: each row holds the layout's columns, then the values
    /// of its group keys. Orders the rows by their group keys (stable, so rows of one object each
    /// keep primary-key order), drops the keys, then applies the having predicate,
    /// distinctness, the sorts and the paging. For stores that compute the groups themselves.
    package static func finish(_ rows: [[Value]], of request: AggregateRequest, layout: AggregateLayout) throws
        -> [[String: Value]]
    {
        let width = layout.columns.count
        var rows = rows.enumerated().sorted { x, y in
            for (a, b) in zip(x.element[width...], y.element[width...]) {
                let order = ValueComparison.sortOrder(a, b)
                if order != 0 { return order < 0 }
            }
            return x.offset < y.offset
        }.map { Array($0.element[..<width]) }
        if let having = request.havingPredicate {
            rows = try filter(rows, by: having, layout: layout)
        }
        if request.returnsDistinctResults {
            var seen: Set<[Value]> = []
            rows = rows.filter { seen.insert($0).inserted }
        }
        if !request.sorts.isEmpty {
            let indexes = request.sorts.map { sort in
                layout.columns.firstIndex { $0.property.name == sort.keyPath.description }!
            }
            rows = rows.enumerated().sorted { x, y in
                for (sort, column) in zip(request.sorts, indexes) {
                    let order = ValueComparison.sortOrder(x.element[column], y.element[column], options: sort.options)
                    if order != 0 { return sort.ascending ? order < 0 : order > 0 }
                }
                return x.offset < y.offset
            }.map(\.element)
        }
        let start = min(request.offset, rows.count)
        let end = request.limit.map { min(start + $0, rows.count) } ?? rows.count
        return rows[start..<end].map { values in
            var row: [String: Value] = [:]
            for (column, value) in zip(layout.columns, values) { row[column.property.name] = value }
            return row
        }
    }

    /// `snapshots` (in primary-key order) split into groups of equal keys, in ascending key order;
    /// with no keys, one group of all of them, even when empty.
    private static func groups(of snapshots: [Snapshot], by keys: [PropertyPath], evaluator: PredicateEvaluator) throws
        -> [[Snapshot]]
    {
        guard !keys.isEmpty else { return [snapshots] }
        let keyed = try snapshots.map { snapshot in
            (snapshot, try keys.map { try evaluator.value(at: $0, of: snapshot) })
        }
        func compare(_ x: [Value], _ y: [Value]) -> Int {
            for (a, b) in zip(x, y) {
                let order = ValueComparison.sortOrder(a, b)
                if order != 0 { return order }
            }
            return 0
        }
        let sorted = keyed.enumerated().sorted { x, y in
            let order = compare(x.element.1, y.element.1)
            return order != 0 ? order < 0 : x.offset < y.offset
        }.map(\.element)
        var result: [[Snapshot]] = []
        var previous: [Value]?
        for (snapshot, key) in sorted {
            if let previous, compare(previous, key) == 0 {
                result[result.count - 1].append(snapshot)
            } else {
                result.append([snapshot])
            }
            previous = key
        }
        return result
    }

    /// The value of `column` over the objects of one group.
    private static func value(
        of column: AggregateLayout.Column, over group: [Snapshot], evaluator: PredicateEvaluator, entity: String
    ) throws -> Value {
        let function = column.property.function
        guard let path = column.property.keyPath else { return .integer(Int64(group.count)) }
        if function == .value {
            return try group.first.map { try evaluator.value(at: path, of: $0) } ?? .null
        }
        let values = try group.map { try evaluator.value(at: path, of: $0) }.filter { !$0.isNull }
        switch function.kind {
        case .value: return values.first ?? .null
        case .count: return .integer(Int64(values.count))
        case .sum: return try sum(values, resultType: column.resultType, column: column, entity: entity)
        case .average:
            guard !values.isEmpty else { return .null }
            return .double(AggregateArithmetic.sum(ofDoubles: values) / Double(values.count))
        case .minimum:
            return values.min { ValueComparison.sortOrder($0, $1) < 0 } ?? .null
        case .maximum:
            return values.max { ValueComparison.sortOrder($0, $1) < 0 } ?? .null
        }
    }

    private static func sum(
        _ values: [Value], resultType: AttributeType, column: AggregateLayout.Column, entity: String
    )
        throws -> Value
    {
        switch resultType {
        case .integer64:
            var total: Int64 = 0
            for case .integer(let value) in values {
                let (next, overflow) = total.addingReportingOverflow(value)
                if overflow {
                    throw StrataError(
                        .arithmeticOverflow,
                        "the sum of '\(column.property.keyPath?.description ?? "")' of '\(entity)' exceeds the 64-bit integer range",
                        location: ["entity": entity, "key": column.property.name])
                }
                total = next
            }
            return .integer(total)
        case .decimal:
            var total = Decimal(0)
            for case .decimal(let value) in values { total += value }
            return .decimal(total)
        default:
            return .double(AggregateArithmetic.sum(ofDoubles: values))
        }
    }

    /// The rows the having predicate keeps, evaluated on each row as an object of the layout's
    /// result entity.
    private static func filter(_ rows: [[Value]], by having: ObjectPredicate, layout: AggregateLayout) throws
        -> [[Value]]
    {
        let entity = try layout.resultModel.requireEntity(AggregateLayout.resultEntityName)
        let evaluator = PredicateEvaluator(model: layout.resultModel) { _ in nil }
        let positions = entity.attributes.map { attribute in
            layout.columns.firstIndex { $0.property.name == attribute.name }!
        }
        let scope = ObjectID.Scope(entityName: AggregateLayout.resultEntityName, storeIdentifier: "aggregate")
        return try rows.enumerated().filter { index, row in
            let snapshot = Snapshot(
                objectID: scope.id(primaryKey: Int64(index) + 1), version: 0,
                attributes: positions.map { row[$0] }, relationships: [])
            return try evaluator.evaluate(having, on: snapshot)
        }.map(\.element)
    }
}

/// Arithmetic shared by the in-memory evaluation and stores that check their own.
package enum AggregateArithmetic {
    /// The sum of the numeric values as doubles, with Kahan-Babuska-Neumaier compensation (the
    /// summation SQLite uses), so long sums of doubles lose as little as the stores' do.
    package static func sum(ofDoubles values: [Value]) -> Double {
        var sum = 0.0
        var compensation = 0.0
        for value in values {
            guard let x = ValueComparison.double(value) else { continue }
            let t = sum + x
            if abs(sum) >= abs(x) {
                compensation += (sum - t) + x
            } else {
                compensation += (x - t) + sum
            }
            sum = t
        }
        return sum + compensation
    }
}
