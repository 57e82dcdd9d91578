import StrataCore

/// The order in which each unique constraint's database lists its attributes, when that differs
/// from the order the model that opens the store declares them in.
///
/// A unique constraint's database (`u:ENTITY:A,B`) is named after its attributes and keyed by
/// their values, both in the order the model that made the store declared them. The version hash
/// sorts a constraint's attributes, so a store opens with a model that declares the same constraint
/// as `[B, A]`: the store then finds the database under the order it was made with and keeps
/// reading and writing its keys in that order.
struct UniqueConstraintOrder: Sendable, Equatable {
    /// By entity name and the constraint's declared attributes, the attributes in the order of the
    /// store's database (only constraints whose database uses another order).
    private var stored: [String: [[String]: [String]]] = [:]

    /// Every constraint in the order its model declares it: a new store's.
    static let declared = UniqueConstraintOrder()

    /// The orders of the databases that exist for `model`'s unique constraints; `exists` says
    /// whether a named database exists. A constraint none of whose orders exists keeps its declared
    /// order (a database still to be created, or missing, which opening reports).
    static func resolve(for model: Model, exists: (String) throws -> Bool) throws -> UniqueConstraintOrder {
        var order = UniqueConstraintOrder()
        for entity in model.entities {
            for constraint in entity.uniqueConstraints {
                guard try !exists(LMDBLayout.unique(entity.name, constraint)) else { continue }
                for candidate in permutations(of: constraint) where candidate != constraint {
                    if try exists(LMDBLayout.unique(entity.name, candidate)) {
                        order.stored[entity.name, default: [:]][constraint] = candidate
                        break
                    }
                }
            }
        }
        return order
    }

    /// `constraint`'s attributes in the order of its database in the store.
    func attributes(of constraint: [String], in entity: String) -> [String] {
        stored[entity]?[constraint] ?? constraint
    }

    /// The most attributes whose every order is tried (720 orders); a longer constraint is looked
    /// up only as declared.
    static let maximumPermutedCount = 6

    /// Every order of `names` (`names` itself first), or only `names` when it is longer than
    /// ``maximumPermutedCount``.
    static func permutations(of names: [String]) -> [[String]] {
        guard names.count > 1, names.count <= maximumPermutedCount else { return [names] }
        var result: [[String]] = []
        func place(_ chosen: [String], _ rest: [String]) {
            guard !rest.isEmpty else { return result.append(chosen) }
            for (index, name) in rest.enumerated() {
                var remaining = rest
                remaining.remove(at: index)
                place(chosen + [name], remaining)
            }
        }
        place([], names)
        return result
    }
}
