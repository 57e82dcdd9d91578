import StrataTestSupport
import Testing

@testable import StrataEngine

/// The set a unique check finds two new objects sharing an integer value with.
@Suite struct IntegerKeySetTests {
    @Test func findsEveryRepeatAmongRandomValues() {
        var generator = SeededGenerator(seed: 11)
        var set = IntegerKeySet(capacity: 20_000)
        var model: Set<Int64> = []
        for _ in 0..<20_000 {
            // Narrow enough that about a third repeat; the extremes too.
            let value: Int64 =
                switch generator.next() % 100 {
                case 0: .min
                case 1: .max
                case 2: 0
                default: Int64(generator.next() % 30_000) - 15_000
                }
            let inserted = set.insert(value)
            #expect(inserted == model.insert(value).inserted)
        }
        #expect(set.count == model.count)
    }

    /// With seed 0, the value 0 mixes to 0, the mark of an empty slot: it is kept apart.
    @Test func theValueThatMixesToTheEmptyMarkIsKeptApart() {
        var set = IntegerKeySet(capacity: 4, seed: 0)
        let answers = [set.insert(0), set.insert(0), set.insert(1), set.insert(1)]
        #expect(answers == [true, false, true, false])
        #expect(set.count == 2)
    }

    @Test func sequentialValuesSpreadOverTheSlots() {
        var set = IntegerKeySet(capacity: 100_000)
        let added = (0..<Int64(100_000)).filter { set.insert($0) }.count
        let repeated = stride(from: Int64(0), to: 100_000, by: 1_000).filter { !set.insert($0) }.count
        #expect(added == 100_000 && repeated == 100)
        #expect(set.count == 100_000)
    }
}
