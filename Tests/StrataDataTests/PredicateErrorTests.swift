import Foundation
import StrataCore
import StrataData
import StrataTestSupport
import Testing

/// Random predicates with a part Strata cannot run anywhere in them: the translation always
/// fails with a typed error naming that part, never crashes and never drops it.
@Suite struct PredicateErrorTests {
    typealias Condition = PredicateRandomizedTests.Condition
    typealias Trip = PredicateRandomizedTests.Trip

    @Test(arguments: 0..<4)
    func anUntranslatablePartFailsTheWholePredicate(run: Int) throws {
        var random = SeededGenerator(seed: 0xE220_0000 + UInt64(run))
        let store = FixtureStore(
            trips: (0..<4).map { _ in PredicateRandomizedTests.trip(&random) }, places: PredicateRandomizedTests.places)
        let items = store.trips.flatMap(\.items)
        for _ in 0..<40 {
            let (kind, untranslatable) = Self.untranslatable(&random)
            let other = PredicateRandomizedTests.condition(depth: 2, &random, items: items)
            let combine = Int.random(in: 0..<4, using: &random)
            let predicate = Predicate<TripFixture> { trip in
                switch combine {
                case 0: return PredicateRandomizedTests.and(other(trip), untranslatable(trip))
                case 1: return PredicateRandomizedTests.or(untranslatable(trip), other(trip))
                case 2: return PredicateRandomizedTests.not(untranslatable(trip))
                default: return PredicateRandomizedTests.choose(other(trip), untranslatable(trip), other(trip))
                }
            }
            let error = strataError { _ = try store.translate(predicate) }
            #expect(error?.code == .invalidPredicate, "\(predicate.expression)")
            #expect(error?.location["expressionType"] == kind, "\(predicate.expression)")
            #expect(error?.location["predicate"] != nil)
        }
    }

    /// A condition with no Strata counterpart, and the Foundation type the error names.
    static func untranslatable(_ random: inout SeededGenerator) -> (String, (Trip) -> Condition) {
        let number = Int.random(in: 0...10, using: &random)
        switch Int.random(in: 0..<5, using: &random) {
        case 0:
            return (
                "Arithmetic",
                {
                    PredicateExpressions.build_Comparison(
                        lhs: PredicateExpressions.build_Arithmetic(
                            lhs: PredicateRandomizedTests.key($0, \.days), rhs: PredicateExpressions.build_Arg(2),
                            op: .multiply),
                        rhs: PredicateExpressions.build_Arg(number), op: .greaterThan)
                }
            )
        case 1:
            return (
                "Filter",
                {
                    PredicateExpressions.build_Comparison(
                        lhs: PredicateExpressions.build_KeyPath(
                            root: PredicateExpressions.build_filter(PredicateRandomizedTests.key($0, \.items)) {
                                PredicateExpressions.build_KeyPath(root: $0, keyPath: \.packed)
                            },
                            keyPath: \.count),
                        rhs: PredicateExpressions.build_Arg(1), op: .greaterThanOrEqual)
                }
            )
        case 2:
            return (
                "SequenceContainsWhere",
                {
                    PredicateExpressions.build_contains(PredicateRandomizedTests.key($0, \.items)) {
                        PredicateExpressions.build_Conjunction(
                            lhs: PredicateExpressions.build_KeyPath(root: $0, keyPath: \.packed),
                            rhs: PredicateExpressions.build_Comparison(
                                lhs: PredicateExpressions.build_KeyPath(root: $0, keyPath: \.price),
                                rhs: PredicateExpressions.build_Arg(Double(number * 20)), op: .greaterThan))
                    }
                }
            )
        case 3:
            return (
                "KeyPath",
                {
                    PredicateExpressions.build_Comparison(
                        lhs: PredicateExpressions.build_KeyPath(
                            root: PredicateRandomizedTests.key($0, \.name), keyPath: \.count),
                        rhs: PredicateExpressions.build_Arg(number), op: .greaterThan)
                }
            )
        default:
            return (
                "KeyPath",
                {
                    PredicateExpressions.build_Equal(
                        lhs: PredicateRandomizedTests.key($0, \.label), rhs: PredicateExpressions.build_Arg("BERN"))
                }
            )
        }
    }
}
