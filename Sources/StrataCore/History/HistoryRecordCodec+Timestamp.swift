import Foundation

extension HistoryRecordCodec {
    /// The commit time recorded in `record`, read from its fixed header (the version byte and
    /// the 8-byte timestamp) without decoding the changes: what pruning by date needs of each
    /// transaction it looks at.
    ///
    /// - Throws: ``StrataError/Code/storeCorrupt`` naming the token when the header is cut short
    ///   or of an unknown version.
    public static func timestamp(of record: some Collection<UInt8>, token: HistoryToken) throws -> Date {
        var bytes = record.makeIterator()
        guard let version = bytes.next(), version == formatVersion else {
            throw StrataError(
                .storeCorrupt,
                "the history transaction \(token) is damaged: it does not start with format version \(formatVersion)",
                location: ["token": token.description, "offset": "0"])
        }
        var bits: UInt64 = 0
        for index in 0..<8 {
            guard let byte = bytes.next() else {
                throw StrataError(
                    .storeCorrupt, "the history transaction \(token) is damaged: it ends early",
                    location: ["token": token.description, "offset": String(1 + index)])
            }
            bits |= UInt64(byte) << UInt64(index * 8)
        }
        return Date(timeIntervalSince1970: Double(bitPattern: bits))
    }
}
