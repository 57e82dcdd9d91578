import Foundation

/// Checks a model's internal consistency; every failure names a JSON path into the model format.
struct ModelValidator {
    let model: Model

    func validate() throws {
        var seenEntities: [String: Int] = [:]
        for (e, entity) in model.entities.enumerated() {
            let path = "$.entities[\(e)]"
            try name(entity.name, at: "\(path).name", what: "entity name")
            if let first = seenEntities[entity.name] {
                throw fail(
                    "entity '\(entity.name)' is declared twice (also at $.entities[\(first)])", at: "\(path).name")
            }
            seenEntities[entity.name] = e
            try validateProperties(of: entity, at: path)
        }
        for (configuration, names) in model.configurations {
            for name in names where model.entity(named: name) == nil {
                throw fail(
                    "configuration '\(configuration)' names unknown entity '\(name)'",
                    at: "$.configurations.\(configuration)")
            }
        }
    }

    private func validateProperties(of entity: Entity, at path: String) throws {
        var seen: Set<String> = []
        for (a, attribute) in entity.attributes.enumerated() {
            let p = "\(path).attributes[\(a)]"
            try name(attribute.name, at: "\(p).name", what: "attribute name")
            guard seen.insert(attribute.name).inserted else {
                throw fail("'\(entity.name).\(attribute.name)' is declared twice", at: "\(p).name")
            }
            if let value = attribute.defaultValue, !value.fits(attribute.type) {
                throw fail(
                    "the default \(value) of '\(entity.name).\(attribute.name)' is not a valid \(attribute.type.rawValue)",
                    at: "\(p).default")
            }
            try validateRules(attribute, of: entity, at: "\(p).validation")
        }
        for (r, relationship) in entity.relationships.enumerated() {
            let p = "\(path).relationships[\(r)]"
            try name(relationship.name, at: "\(p).name", what: "relationship name")
            guard seen.insert(relationship.name).inserted else {
                throw fail(
                    "'\(entity.name).\(relationship.name)' is declared twice (names are shared by attributes and relationships)",
                    at: "\(p).name")
            }
            guard let destination = model.entity(named: relationship.destination) else {
                throw fail(
                    "'\(entity.name).\(relationship.name)' points at unknown entity '\(relationship.destination)'",
                    at: "\(p).destination")
            }
            guard let inverse = destination.relationship(named: relationship.inverse) else {
                throw fail(
                    "the inverse '\(relationship.inverse)' of '\(entity.name).\(relationship.name)' is not a relationship of '\(destination.name)'",
                    at: "\(p).inverse")
            }
            guard inverse.destination == entity.name, inverse.inverse == relationship.name else {
                throw fail(
                    "'\(destination.name).\(inverse.name)' must point back at '\(entity.name).\(relationship.name)' to be its inverse",
                    at: "\(p).inverse")
            }
            if relationship.isOrdered && !relationship.isToMany {
                throw fail("'\(entity.name).\(relationship.name)' is ordered but not to-many", at: "\(p).ordered")
            }
            if relationship.minimumCount < 0 || relationship.maximumCount < 0
                || (relationship.maximumCount > 0 && relationship.minimumCount > relationship.maximumCount)
            {
                throw fail(
                    "'\(entity.name).\(relationship.name)' has an impossible count range \(relationship.minimumCount)...\(relationship.maximumCount)",
                    at: "\(p).minCount")
            }
        }
        for (u, constraint) in entity.uniqueConstraints.enumerated() {
            guard !constraint.isEmpty else {
                throw fail("a unique constraint of '\(entity.name)' is empty", at: "\(path).uniqueConstraints[\(u)]")
            }
            for property in constraint where entity.attribute(named: property) == nil {
                throw fail(
                    "unique constraint of '\(entity.name)' names '\(property)', which is not an attribute",
                    at: "\(path).uniqueConstraints[\(u)]")
            }
        }
        var indexNames: Set<String> = []
        for (i, index) in entity.indexes.enumerated() {
            try name(index.name, at: "\(path).indexes[\(i)].name", what: "index name")
            guard indexNames.insert(index.name).inserted else {
                throw fail(
                    "index '\(index.name)' of '\(entity.name)' is declared twice", at: "\(path).indexes[\(i)].name")
            }
            guard !index.properties.isEmpty else {
                throw fail(
                    "index '\(index.name)' of '\(entity.name)' covers no attribute",
                    at: "\(path).indexes[\(i)].properties")
            }
            for property in index.properties where entity.attribute(named: property) == nil {
                throw fail(
                    "index '\(index.name)' of '\(entity.name)' names '\(property)', which is not an attribute",
                    at: "\(path).indexes[\(i)].properties")
            }
        }
    }

    private func validateRules(_ attribute: Attribute, of entity: Entity, at path: String) throws {
        let rules = attribute.validation
        let label = "'\(entity.name).\(attribute.name)'"
        for (bound, key) in [(rules.minimum, "min"), (rules.maximum, "max")] {
            guard let bound else { continue }
            guard attribute.type.isNumeric || attribute.type == .date else {
                throw fail(
                    "\(label) is a \(attribute.type.rawValue); \(key) applies to numbers and dates",
                    at: "\(path).\(key)")
            }
            guard bound.fits(attribute.type) else {
                throw fail(
                    "the \(key) \(bound) of \(label) is not a valid \(attribute.type.rawValue)", at: "\(path).\(key)")
            }
        }
        for (length, key) in [(rules.minimumLength, "minLength"), (rules.maximumLength, "maxLength")] {
            guard let length else { continue }
            guard attribute.type == .string || attribute.type == .binary else {
                throw fail(
                    "\(label) is a \(attribute.type.rawValue); \(key) applies to strings and binaries",
                    at: "\(path).\(key)")
            }
            guard length >= 0 else {
                throw fail("the \(key) of \(label) is negative (\(length))", at: "\(path).\(key)")
            }
        }
        if let pattern = rules.pattern {
            guard attribute.type == .string else {
                throw fail(
                    "\(label) is a \(attribute.type.rawValue); pattern applies to strings", at: "\(path).pattern")
            }
            do { _ = try NSRegularExpression(pattern: pattern) } catch {
                throw fail(
                    "the pattern of \(label) is not a valid regular expression: \(pattern)", at: "\(path).pattern")
            }
        }
    }

    private func name(_ name: String, at path: String, what: String) throws {
        guard ModelNaming.isValidName(name) else {
            throw fail(
                "'\(name)' is not a valid \(what): use a letter followed by letters, digits or underscores (at most 128)",
                at: path)
        }
    }

    private func fail(_ message: String, at path: String) -> StrataError {
        StrataError(.invalidModel, message, location: ["path": path])
    }
}
