/// The structural hash of a model.
///
/// Two models have the same hash exactly when a store written with one can be read with the other
/// without migration. The hash covers, for each entity: its name; each attribute's name, type and
/// optionality; each relationship's name, destination, inverse, to-many, ordered and (for a
/// to-one) optionality; the unique constraints; the indexes. It leaves out everything that does
/// not change what is stored: the version identifier, renaming identifiers, default values,
/// validation rules, delete rules, count bounds, the optionality of a to-many (its count bounds
/// say how many targets it needs), configurations, and the order of declarations (entities and
/// properties are sorted by name first). So a model declared in Swift (`@Model` or `@Managed`
/// classes) and the same model in a JSON file have one hash, whatever order each lists things in.
///
/// The value is SHA-256 over a canonical text (``canonicalText(entities:)``), printed as 64
/// lowercase hex digits: the same on every run and machine.
public enum ModelVersionHash {
    /// The hash of `entities`.
    public static func compute(entities: [Entity]) -> String {
        SHA256.hexDigest(of: Array(canonicalText(entities: entities).utf8))
    }

    /// The hashes earlier Strata releases gave the structure of `entities`, where they differ from
    /// ``compute(entities:)``: stores record the hash they were written with, and one that
    /// records an earlier hash of the same structure still opens.
    ///
    /// Earlier releases hashed the optionality of to-many relationships, which stores do not
    /// depend on; a model with a to-many declared not optional had another hash.
    public static func previousHashes(entities: [Entity]) -> [String] {
        let hasRequiredToMany = entities.contains { $0.relationships.contains { $0.isToMany && !$0.isOptional } }
        guard hasRequiredToMany else { return [] }
        return [SHA256.hexDigest(of: Array(canonicalText(entities: entities, hashesToManyOptionality: true).utf8))]
    }

    /// The canonical text the hash is taken over: one line per entity, property, constraint and
    /// index, sorted. Exposed so that a hash difference can be explained by diffing two texts.
    public static func canonicalText(entities: [Entity]) -> String {
        canonicalText(entities: entities, hashesToManyOptionality: false)
    }

    private static func canonicalText(entities: [Entity], hashesToManyOptionality: Bool) -> String {
        var lines: [String] = ["strata-model-hash 1"]
        for entity in entities.sorted(by: { $0.name < $1.name }) {
            lines.append("entity \(entity.name)")
            for a in entity.attributes.sorted(by: { $0.name < $1.name }) {
                lines.append("  attribute \(a.name) \(a.type.rawValue) \(a.isOptional ? "optional" : "required")")
            }
            for r in entity.relationships.sorted(by: { $0.name < $1.name }) {
                // A to-many is written "optional", as every to-many of earlier releases was by
                // default, so that their hashes stay the same.
                let isOptional = r.isOptional || (r.isToMany && !hashesToManyOptionality)
                lines.append(
                    "  relationship \(r.name) \(r.destination) inverse \(r.inverse) \(r.isToMany ? "to-many" : "to-one")"
                        + " \(r.isOrdered ? "ordered" : "unordered") \(isOptional ? "optional" : "required")")
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
