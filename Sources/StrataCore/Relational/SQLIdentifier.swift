/// SQL's spelling of identifiers, the same in every SQL dialect Strata writes.
package enum SQLIdentifier {
    /// `identifier` double-quoted, any quote inside doubled (model names never hold one; a
    /// PostgreSQL schema name may). Scans the bytes first: `replacingOccurrences` goes through
    /// Foundation and costs far more than the common case needs.
    @inlinable
    package static func quoted(_ identifier: String) -> String {
        guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
        var quoted = "\""
        for character in identifier.unicodeScalars {
            quoted.unicodeScalars.append(character)
            if character == "\"" { quoted.unicodeScalars.append(character) }
        }
        return quoted + "\""
    }
}
