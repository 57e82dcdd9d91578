import StrataCore

/// Which groups a ``GroupedAggregateDescriptor`` keeps: SQL's `HAVING`, a comparison of an
/// aggregate with a value, or several joined by `&&`, `||` and `!`.
///
/// ```swift
/// let busy: AggregateCondition<Trip> = .count > 2 && .average(\.nights) >= 3
/// ```
///
/// An aggregate that is `nil` for a group (the average of no values) matches only `== nil`.
/// The aggregates compared need not be among the descriptor's own.
public struct AggregateCondition<Model: PersistentModel> {
    indirect enum Node {
        case comparison(AggregateColumn, ObjectPredicate.Operator, StrataCore.Value)
        case and(Node, Node)
        case or(Node, Node)
        case not(Node)
    }

    let node: Node

    /// Both conditions.
    public static func && (lhs: AggregateCondition, rhs: AggregateCondition) -> AggregateCondition {
        AggregateCondition(node: .and(lhs.node, rhs.node))
    }

    /// Either condition.
    public static func || (lhs: AggregateCondition, rhs: AggregateCondition) -> AggregateCondition {
        AggregateCondition(node: .or(lhs.node, rhs.node))
    }

    /// The opposite condition.
    public static prefix func ! (condition: AggregateCondition) -> AggregateCondition {
        AggregateCondition(node: .not(condition.node))
    }

    /// The aggregates the condition compares, in the order they appear.
    var columns: [AggregateColumn] {
        func collect(_ node: Node, into columns: inout [AggregateColumn]) {
            switch node {
            case .comparison(let column, _, _): columns.append(column)
            case .and(let lhs, let rhs), .or(let lhs, let rhs):
                collect(lhs, into: &columns)
                collect(rhs, into: &columns)
            case .not(let inner): collect(inner, into: &columns)
            }
        }
        var columns: [AggregateColumn] = []
        collect(node, into: &columns)
        return columns
    }

    /// The engine's having predicate, over the result columns `name` names.
    func predicate(naming name: (AggregateColumn) -> String) -> ObjectPredicate {
        func translate(_ node: Node) -> ObjectPredicate {
            switch node {
            case .comparison(let column, let op, let value):
                return .comparison(.init(.keyPath(PropertyPath(name(column))), op, .constant(value)))
            case .and(let lhs, let rhs): return .and([translate(lhs), translate(rhs)])
            case .or(let lhs, let rhs): return .or([translate(lhs), translate(rhs)])
            case .not(let inner): return .not(translate(inner))
            }
        }
        return translate(node)
    }
}

extension Aggregate where Value: PersistentAttributeValue {
    private func compared(_ op: ObjectPredicate.Operator, _ value: Value) -> AggregateCondition<Model> {
        AggregateCondition(node: .comparison(column, op, value.storedValue))
    }

    /// The groups whose aggregate equals `value`.
    public static func == (aggregate: Aggregate, value: Value) -> AggregateCondition<Model> {
        aggregate.compared(.equal, value)
    }

    /// The groups whose aggregate differs from `value`.
    public static func != (aggregate: Aggregate, value: Value) -> AggregateCondition<Model> {
        aggregate.compared(.notEqual, value)
    }

    /// The groups whose aggregate is below `value`.
    public static func < (aggregate: Aggregate, value: Value) -> AggregateCondition<Model> {
        aggregate.compared(.less, value)
    }

    /// The groups whose aggregate is at most `value`.
    public static func <= (aggregate: Aggregate, value: Value) -> AggregateCondition<Model> {
        aggregate.compared(.lessOrEqual, value)
    }

    /// The groups whose aggregate is above `value`.
    public static func > (aggregate: Aggregate, value: Value) -> AggregateCondition<Model> {
        aggregate.compared(.greater, value)
    }

    /// The groups whose aggregate is at least `value`.
    public static func >= (aggregate: Aggregate, value: Value) -> AggregateCondition<Model> {
        aggregate.compared(.greaterOrEqual, value)
    }
}
