import Foundation
import Testing

@testable import StrataTransfer

/// The exporter's direct writer must give exactly the bytes of `JSONNode.compactText()`.
@Suite struct JSONLineWriterTests {
    @Test func valuesAreWrittenExactlyAsJSONNodeWritesThem() {
        var generator = SystemRandomNumberGenerator()
        var values: [Value] = [
            .null, .integer(0), .integer(Int64.min), .integer(Int64.max), .bool(true), .bool(false),
            .double(0), .double(-0.0), .double(1e15), .double(-1e15 + 1), .double(999_999_999_999_999), .double(1e-300),
            .double(.nan),
            .double(.infinity), .double(-.infinity), .double(0.1), .double(-2.5), .double(.greatestFiniteMagnitude),
            .float(1.7), .float(-0.0), .float(.nan), .decimal(Decimal(string: "-12.50")!),
            .string(""), .string("plain"), .string("q\"b\\s/\n\r\t\u{0}\u{1F}\u{7F} ✓ 🎉 Ана"),
            .date(Date(timeIntervalSince1970: 0)), .date(Date(timeIntervalSince1970: 1_700_000_000.0001)),
            .binary(Data([0, 1, 2, 255])), .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
            .uri(URL(string: "https://example.com/a%20b?x=1#f")!),
        ]
        for _ in 0..<2_000 {
            values.append(.double(Double(bitPattern: generator.next())))
            values.append(.double(Double(Int64.random(in: -1_000_000...1_000_000, using: &generator)) / 8))
        }
        for value in values {
            var writer = JSONLineWriter()
            writer.value(value)
            #expect(writer.text == JSONValueCoding.encode(value).compactText(), "\(value)")
        }
    }
}
