import Foundation
import StrataCore

/// The model, laid out for the XML reader and writer: NUL-terminated names ready for libxml2,
/// the order properties are written in, and name lookups for the reader.
///
/// Built once per open store. The C strings are allocated at creation and freed with the layout;
/// they are never written to after creation, which makes the layout safe to share.
final class XMLModelLayout: @unchecked Sendable {
    /// One entity's layout, indexed like ``Model/entities``.
    let entities: [XMLEntityLayout]
    /// The entity index by name.
    let entityIndexByName: [String: Int]
    /// Entity indexes in the order the file lists them: by name (byte order).
    let entityWriteOrder: [Int]

    /// Lays out `model`.
    init(model: Model) {
        var byName: [String: Int] = [:]
        for (i, entity) in model.entities.enumerated() { byName[entity.name] = i }
        entityIndexByName = byName
        entities = model.entities.map { XMLEntityLayout(entity: $0, entityIndexByName: byName) }
        entityWriteOrder = model.entities.indices.sorted {
            Array(model.entities[$0].name.utf8).lexicographicallyPrecedes(Array(model.entities[$1].name.utf8))
        }
    }
}

/// One entity's layout: see ``XMLModelLayout``.
final class XMLEntityLayout: @unchecked Sendable {
    /// What a written XML attribute of an object element holds.
    enum SlotKind {
        /// The attribute at this index of ``Entity/attributes``.
        case attribute(Int)
        /// The relationship at this index of ``Entity/relationships``.
        case relationship(Int)
    }

    /// One property as written: its C name and what it holds.
    struct Slot {
        /// The NUL-terminated property name.
        let cName: UnsafeMutablePointer<UInt8>
        /// What it holds.
        let kind: SlotKind
    }

    /// The entity.
    let entity: Entity
    /// The NUL-terminated entity name (the element name).
    let cName: UnsafeMutablePointer<UInt8>
    /// Properties in the order they are written: attributes, then relationships, in declaration order.
    let slots: [Slot]
    /// The slot index by property name.
    let slotIndexByName: [String: Int]
    /// The attribute types, indexed like ``Entity/attributes``.
    let attributeTypes: [AttributeType]
    /// For each attribute, whether it is required (non-optional).
    let isRequired: [Bool]
    /// The entity's name (a copy, so that reading it does not copy the whole ``entity``).
    let name: String
    /// For each relationship, the index of its destination entity in the model.
    let destinations: [Int]
    /// For each relationship, the name of its destination entity.
    let destinationNames: [String]
    /// For each relationship, whether it is to-many.
    let isToMany: [Bool]
    /// For each relationship, whether it is an unordered to-many (kept sorted by key).
    let isUnorderedToMany: [Bool]
    /// The relationships of a new row: every to-one empty, every to-many empty.
    let emptyTargets: [StoredRelationship]
    /// The NUL-terminated base64 names of string attributes (`name.b64`), indexed like ``Entity/attributes``.
    let base64Names: [UnsafeMutablePointer<UInt8>?]

    init(entity: Entity, entityIndexByName: [String: Int]) {
        self.entity = entity
        cName = Self.cString(entity.name)
        var slots: [Slot] = []
        var byName: [String: Int] = [:]
        for (i, attribute) in entity.attributes.enumerated() {
            byName[attribute.name] = slots.count
            slots.append(Slot(cName: Self.cString(attribute.name), kind: .attribute(i)))
        }
        for (i, relationship) in entity.relationships.enumerated() {
            byName[relationship.name] = slots.count
            slots.append(Slot(cName: Self.cString(relationship.name), kind: .relationship(i)))
        }
        self.slots = slots
        slotIndexByName = byName
        attributeTypes = entity.attributes.map(\.type)
        isRequired = entity.attributes.map { !$0.isOptional }
        name = entity.name
        destinations = entity.relationships.map { entityIndexByName[$0.destination] ?? 0 }
        destinationNames = entity.relationships.map(\.destination)
        isToMany = entity.relationships.map(\.isToMany)
        isUnorderedToMany = entity.relationships.map { $0.isToMany && !$0.isOrdered }
        emptyTargets = entity.relationships.map { $0.isToMany ? .toMany([]) : .toOne(nil) }
        base64Names = entity.attributes.map {
            $0.type == .string ? Self.cString($0.name + XMLFormat.base64Suffix) : nil
        }
    }

    deinit {
        cName.deallocate()
        for slot in slots { slot.cName.deallocate() }
        for name in base64Names { name?.deallocate() }
    }

    /// A NUL-terminated copy of `text`, owned by the layout.
    private static func cString(_ text: String) -> UnsafeMutablePointer<UInt8> {
        let bytes = Array(text.utf8)
        let pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count + 1)
        pointer.initialize(from: bytes, count: bytes.count)
        pointer[bytes.count] = 0
        return pointer
    }
}
