import Foundation
import StrataCore
import StrataData
import StrataTestSupport
import Testing

/// Random predicates over random trips: Strata's evaluator, on the translation, selects exactly
/// the trips `Predicate.evaluate` selects.
@Suite struct PredicateRandomizedTests {
    typealias Condition = any StandardPredicateExpression<Bool>
    typealias Trip = PredicateExpressions.Variable<TripFixture>

    static let names = ["Berlin", "Bern", "Éze", "oslo", "Oslo", "B", "", "Be", "os", "ERN", "eze"]
    static let places = [
        PlaceFixture(name: "Paris", rating: 5), PlaceFixture(name: "Oslo", rating: nil),
        PlaceFixture(name: "Bern", rating: 2),
    ]

    @Test(arguments: 0..<8)
    func translationSelectsWhatEvaluateSelects(run: Int) throws {
        var random = SeededGenerator(seed: 0x5EED_0000 + UInt64(run))
        let store = FixtureStore(trips: (0..<24).map { _ in Self.trip(&random) }, places: Self.places)
        var selective = 0
        for _ in 0..<60 {
            let expression = Self.condition(depth: 3, &random, items: store.trips.flatMap(\.items))
            let predicate = Predicate<TripFixture> { trip in expression(trip) }
            let translated = try store.translate(predicate)
            let foundation = try store.foundationMatches(predicate)
            let strata = try store.strataMatches(translated)
            #expect(strata == foundation, "\(predicate.expression)\n→ \(translated)")
            if !foundation.isEmpty && foundation.count < 24 { selective += 1 }
        }
        // Most predicates select some trips but not all, so the comparison has something to compare.
        #expect(selective > 20)
    }

    // MARK: Random trips

    static func trip(_ random: inout SeededGenerator) -> TripFixture {
        let trip = TripFixture()
        trip.name = names.randomElement(using: &random)!
        trip.days = Int.random(in: 0...10, using: &random)
        trip.budget = [0, 90, 800, 1_500.5, 2_000].randomElement(using: &random)!
        trip.rating = Bool.random(using: &random) ? nil : Double(Int.random(in: 0...5, using: &random))
        trip.start = Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...4, using: &random)) * 86_400)
        trip.kind = TripKind.allCases.randomElement(using: &random)!
        trip.note = Bool.random(using: &random) ? nil : names.randomElement(using: &random)!
        trip.cost = Decimal(Int.random(in: 0...3, using: &random)) / 2
        trip.weight = Float(Int.random(in: 0...3, using: &random)) / 2
        trip.small = Int16.random(in: -2...2, using: &random)
        trip.isArchived = [nil, true, false].randomElement(using: &random)!
        trip.place = Bool.random(using: &random) ? nil : places.randomElement(using: &random)!
        trip.items = (0..<Int.random(in: 0...3, using: &random)).map { _ in
            ItemFixture(
                title: names.randomElement(using: &random)!, price: Double(Int.random(in: 0...4, using: &random) * 50),
                packed: Bool.random(using: &random))
        }
        return trip
    }

    // MARK: Random conditions

    static func condition(depth: Int, _ random: inout SeededGenerator, items: [ItemFixture]) -> (Trip) -> Condition {
        guard depth > 0, Int.random(in: 0..<3, using: &random) > 0 else { return leaf(&random, items: items) }
        let a = condition(depth: depth - 1, &random, items: items)
        let b = condition(depth: depth - 1, &random, items: items)
        switch Int.random(in: 0..<5, using: &random) {
        case 0: return { and(a($0), b($0)) }
        case 1: return { or(a($0), b($0)) }
        case 2: return { not(a($0)) }
        case 3:
            let c = condition(depth: depth - 1, &random, items: items)
            return { choose(a($0), b($0), c($0)) }
        default: return { same(a($0), b($0)) }
        }
    }

    static func leaf(_ random: inout SeededGenerator, items: [ItemFixture]) -> (Trip) -> Condition {
        let op =
            [.lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual].randomElement(using: &random)!
            as PredicateExpressions.ComparisonOperator
        let name = names.randomElement(using: &random)!
        let equality = Int.random(in: 0..<3, using: &random)
        let number = Int.random(in: 0...10, using: &random)
        let place = places.randomElement(using: &random)!
        let item = items.randomElement(using: &random) ?? ItemFixture(title: "", price: 0, packed: false)
        let flag = Bool.random(using: &random)
        switch Int.random(in: 0..<31, using: &random) {
        case 0: return { compare(key($0, \.days), number, op) }
        case 1: return { compare(key($0, \.budget), [0, 90, 800, 1_500.5, 3_000][number % 5], op) }
        case 2:
            return { equality == 0 ? compare(key($0, \.name), name, op) : equal(key($0, \.name), name, equality == 1) }
        case 3: return { PredicateExpressions.build_contains(key($0, \.name), PredicateExpressions.build_Arg(name)) }
        case 4:
            return { PredicateExpressions.build_starts(key($0, \.name), with: PredicateExpressions.build_Arg(name)) }
        case 5:
            return {
                PredicateExpressions.build_localizedStandardContains(
                    key($0, \.name), PredicateExpressions.build_Arg(name))
            }
        case 6:
            return {
                compare(
                    PredicateExpressions.build_NilCoalesce(
                        lhs: key($0, \.rating), rhs: PredicateExpressions.build_Arg(Double(number % 6))), 2.5, op)
            }
        case 7:
            let target: String? = equality == 0 ? nil : place.name
            return {
                equal(
                    PredicateExpressions.build_flatMap(key($0, \.place)) {
                        PredicateExpressions.build_KeyPath(root: $0, keyPath: \.name)
                    }, target, equality != 2)
            }
        case 8: return { equal(key($0, \.note), PredicateExpressions.build_NilLiteral(), equality == 1) }
        case 9: return { equal(key($0, \.kind), TripKind.allCases[number % 3], equality == 1) }
        case 10:
            let subset = names.filter { _ in Bool.random(using: &random) }
            return { PredicateExpressions.build_contains(PredicateExpressions.build_Arg(subset), key($0, \.name)) }
        case 11:
            let low = Int.random(in: 0...6, using: &random)
            return {
                PredicateExpressions.build_contains(
                    PredicateExpressions.build_ClosedRange(
                        lower: PredicateExpressions.build_Arg(low), upper: PredicateExpressions.build_Arg(low + 3)),
                    key($0, \.days))
            }
        case 12:
            return {
                compare(PredicateExpressions.build_KeyPath(root: key($0, \.items), keyPath: \.count), number % 4, op)
            }
        case 13: return { PredicateExpressions.build_KeyPath(root: key($0, \.items), keyPath: \.isEmpty) }
        case 14:
            return {
                PredicateExpressions.build_contains(key($0, \.items)) {
                    PredicateExpressions.build_Comparison(
                        lhs: PredicateExpressions.build_KeyPath(root: $0, keyPath: \.price),
                        rhs: PredicateExpressions.build_Arg(Double(number * 20)), op: op)
                }
            }
        case 15:
            return {
                PredicateExpressions.build_allSatisfy(key($0, \.items)) {
                    PredicateExpressions.build_KeyPath(root: $0, keyPath: \.packed)
                }
            }
        case 16: return { equal(key($0, \.place), Optional(place), equality == 1) }
        case 17:
            return {
                PredicateExpressions.build_NilCoalesce(
                    lhs: key($0, \.isArchived), rhs: PredicateExpressions.build_Arg(equality == 1))
            }
        case 18:
            return { compare(key($0, \.start), Date(timeIntervalSinceReferenceDate: Double(number % 5) * 86_400), op) }
        case 19: return { compare(key($0, \.weight), Float(number % 4) / 2, op) }
        case 20: return { compare(key($0, \.cost), Decimal(number % 4) / 2, op) }
        case 21: return { compare(key($0, \.small), Int16(number % 5 - 2), op) }
        case 22:
            return {
                equal(
                    PredicateExpressions.build_flatMap(key($0, \.place)) {
                        PredicateExpressions.build_KeyPath(root: $0, keyPath: \.identifier)
                    }, Optional(place.identifier), flag)
            }
        case 23: return { PredicateExpressions.build_contains(key($0, \.items), PredicateExpressions.build_Arg(item)) }
        case 24:
            let haystack = ["Bernese", "Oslo fjord", "", "Éze village"][number % 4]
            return { PredicateExpressions.build_contains(PredicateExpressions.build_Arg(haystack), key($0, \.name)) }
        case 25:
            return {
                PredicateExpressions.build_contains(key($0, \.items)) {
                    PredicateExpressions.build_Disjunction(
                        lhs: PredicateExpressions.build_Comparison(
                            lhs: PredicateExpressions.build_KeyPath(root: $0, keyPath: \.price),
                            rhs: PredicateExpressions.build_Arg(Double(number * 20)), op: op),
                        rhs: PredicateExpressions.build_KeyPath(root: $0, keyPath: \.packed))
                }
            }
        case 26:
            return {
                PredicateExpressions.build_contains(key($0, \.items)) {
                    PredicateExpressions.build_Negation(PredicateExpressions.build_KeyPath(root: $0, keyPath: \.packed))
                }
            }
        case 27:
            return { trip in
                PredicateExpressions.build_contains(key(trip, \.items)) {
                    PredicateExpressions.build_Conjunction(
                        lhs: PredicateExpressions.build_starts(
                            PredicateExpressions.build_KeyPath(root: $0, keyPath: \.title),
                            with: PredicateExpressions.build_Arg(name)),
                        rhs: PredicateExpressions.build_Comparison(
                            lhs: key(trip, \.days), rhs: PredicateExpressions.build_Arg(number), op: op))
                }
            }
        case 28:
            return {
                PredicateExpressions.build_allSatisfy(key($0, \.items)) {
                    PredicateExpressions.build_Conjunction(
                        lhs: PredicateExpressions.build_Comparison(
                            lhs: PredicateExpressions.build_KeyPath(root: $0, keyPath: \.price),
                            rhs: PredicateExpressions.build_Arg(Double(number * 20)), op: op),
                        rhs: PredicateExpressions.build_KeyPath(root: $0, keyPath: \.packed))
                }
            }
        case 29:
            return {
                PredicateExpressions.build_NilCoalesce(
                    lhs: optionalRating($0, above: number % 6, op), rhs: PredicateExpressions.build_Arg(flag))
            }
        default:
            let target: Bool? = equality == 0 ? nil : flag
            return { equal(optionalRating($0, above: number % 6, op), target, equality != 2) }
        }
    }

    /// `$0.place.flatMap { $0.rating.flatMap { $0 op value } }`: nil without a place or rating.
    static func optionalRating(_ trip: Trip, above value: Int, _ op: PredicateExpressions.ComparisonOperator)
        -> some StandardPredicateExpression<Bool?>
    {
        PredicateExpressions.build_flatMap(key(trip, \.place)) {
            PredicateExpressions.build_flatMap(PredicateExpressions.build_KeyPath(root: $0, keyPath: \.rating)) {
                PredicateExpressions.build_Comparison(lhs: $0, rhs: PredicateExpressions.build_Arg(value), op: op)
            }
        }
    }

    // MARK: Building expressions as `#Predicate` does

    static func key<T>(_ trip: Trip, _ keyPath: any KeyPath<TripFixture, T> & Sendable)
        -> PredicateExpressions.KeyPath<Trip, T>
    {
        PredicateExpressions.build_KeyPath(root: trip, keyPath: keyPath)
    }

    static func compare<E: StandardPredicateExpression>(
        _ lhs: E, _ value: E.Output, _ op: PredicateExpressions.ComparisonOperator
    ) -> Condition where E.Output: Comparable & Codable & Sendable {
        PredicateExpressions.build_Comparison(lhs: lhs, rhs: PredicateExpressions.build_Arg(value), op: op)
    }

    static func equal<E: StandardPredicateExpression>(_ lhs: E, _ value: E.Output, _ isEqual: Bool) -> Condition
    where E.Output: Equatable & Codable & Sendable {
        isEqual
            ? PredicateExpressions.build_Equal(lhs: lhs, rhs: PredicateExpressions.build_Arg(value))
            : PredicateExpressions.build_NotEqual(lhs: lhs, rhs: PredicateExpressions.build_Arg(value))
    }

    static func equal<E: StandardPredicateExpression, N: StandardPredicateExpression>(
        _ lhs: E, _ rhs: N, _ isEqual: Bool
    ) -> Condition where E.Output: Equatable, N.Output == E.Output {
        isEqual
            ? PredicateExpressions.build_Equal(lhs: lhs, rhs: rhs)
            : PredicateExpressions.build_NotEqual(lhs: lhs, rhs: rhs)
    }

    static func and(_ a: some StandardPredicateExpression<Bool>, _ b: some StandardPredicateExpression<Bool>)
        -> Condition
    {
        PredicateExpressions.build_Conjunction(lhs: a, rhs: b)
    }

    static func or(_ a: some StandardPredicateExpression<Bool>, _ b: some StandardPredicateExpression<Bool>)
        -> Condition
    {
        PredicateExpressions.build_Disjunction(lhs: a, rhs: b)
    }

    static func not(_ a: some StandardPredicateExpression<Bool>) -> Condition {
        PredicateExpressions.build_Negation(a)
    }

    static func choose(
        _ test: some StandardPredicateExpression<Bool>, _ a: some StandardPredicateExpression<Bool>,
        _ b: some StandardPredicateExpression<Bool>
    ) -> Condition {
        PredicateExpressions.build_Conditional(test, a, b)
    }

    static func same(_ a: some StandardPredicateExpression<Bool>, _ b: some StandardPredicateExpression<Bool>)
        -> Condition
    {
        PredicateExpressions.build_Equal(lhs: a, rhs: b)
    }
}
