import Foundation
import StrataCore
import Testing

/// Values that are equal hash alike, so sets, dictionaries and distinct aggregates treat them as
/// one whatever order they meet them in.
@Suite struct ValueHashingTests {
    @Test(arguments: [
        (Value.double(-0.0), Value.double(0.0)), (.float(-0.0), .float(0.0)), (.double(.nan), .double(-.nan)),
        (.float(.nan), .float(.signalingNaN)),
    ])
    func equalValuesHaveEqualHashes(_ a: Value, _ b: Value) {
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(Set([a, b]).count == 1)
    }

    @Test func distinctRowsDoNotDependOnWhichZeroComesFirst() {
        let rows: [[String: Value]] = [["x": .double(-0.0)], ["x": .double(0.0)]]
        #expect(Set(rows).count == 1)
        #expect(Set(rows.reversed()).count == 1)
    }
}
