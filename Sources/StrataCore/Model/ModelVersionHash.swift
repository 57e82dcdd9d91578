/// The structural hash of a model.
///
/// Two models have the same hash exactly when a store written with one can be read with the other
/// without migration. The hash covers, for each entity: its name; each attribute's name, type and
/// optionality; each relationship's name, destination, inverse, to-many, ordered and optionality;
/// the unique constraints; the indexes. It leaves out everything that does not change what is
/// stored: the version identifier, renaming identifiers, default values, validation rules, delete
/// rules, count bounds, configurations, and the order of declarations (entities and properties
/// are sorted by name first).
///
/// The value is SHA-256 over a canonical text (``canonicalText(entities:)``), printed as 64
/// lowercase hex digits: the same on every run and machine.
public enum ModelVersionHash {
    /// The hash of `entities`.
    public static func compute(entities: [Entity]) -> String {
        SHA256.hexDigest(of: Array(canonicalText(entities: entities).utf8))
    }

    /// The canonical text the hash is taken over: one line per entity, property, constraint and
    /// index, sorted. Exposed so that a hash difference can be explained by diffing two texts.
    public static func canonicalText(entities: [Entity]) -> String {
        var lines: [String] = ["strata-model-hash 1"]
        for entity in entities.sorted(by: { $0.name < $1.name }) {
            lines.append("entity \(entity.name)")
            for a in entity.attributes.sorted(by: { $0.name < $1.name }) {
                lines.append("  attribute \(a.name) \(a.type.rawValue) \(a.isOptional ? "optional" : "required")")
            }
            for r in entity.relationships.sorted(by: { $0.name < $1.name }) {
                lines.append(
                    "  relationship \(r.name) \(r.destination) inverse \(r.inverse) \(r.isToMany ? "to-many" : "to-one")"
                        + " \(r.isOrdered ? "ordered" : "unordered") \(r.isOptional ? "optional" : "required")")
            }
            for u in entity.uniqueConstraints.map({ $0.sorted().joined(separator: ",") }).sorted() {
                lines.append("  unique \(u)")
            }
            for i in entity.indexes.sorted(by: { $0.name < $1.name }) {
                lines.append("  index \(i.name) \(i.properties.joined(separator: ","))")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
