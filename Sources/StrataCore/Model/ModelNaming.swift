/// The naming rules for entities and properties.
///
/// A name is an ASCII letter followed by up to 127 ASCII letters, digits or underscores. Names
/// beginning with an underscore are reserved for stores (a SQLite store's `_pk` column, say), so
/// no model name can collide with a store's own columns, and no name needs escaping anywhere.
public enum ModelNaming {
    /// Whether `name` follows the rules.
    public static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= 128, isLetter(first) else { return false }
        return bytes.dropFirst().allSatisfy { isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }
}
