import BenchmarkSupport
import Foundation
import StrataData

/// The record as a SwiftData user declares it, with StrataData: a `@Model` class whose key
/// attribute is unique (so indexed).
@Model public final class ModelRecord {
    @Attribute(.unique) public var key: Int64
    public var i1: Int64
    public var i2: Int64
    public var i3: Int64
    public var d1: Double
    public var d2: Double
    public var d3: Double
    public var s1: String
    public var s2: String
    public var s3: String

    public init(_ r: WorkloadRecord) {
        key = keyOf(r.id)
        i1 = r.i1
        i2 = r.i2
        i3 = r.i3
        d1 = r.d1
        d2 = r.d2
        d3 = r.d3
        s1 = r.s1
        s2 = r.s2
        s3 = r.s3
    }

    /// Every property read, summed (``touch(key:i1:i2:i3:d1:d2:d3:s1:s2:s3:)``).
    public var touched: Int {
        touch(key: key, i1: i1, i2: i2, i3: i3, d1: d1, d2: d2, d3: d3, s1: s1, s2: s2, s3: s3)
    }
}
