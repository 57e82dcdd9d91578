import Foundation
import StrataCore
import StrataData

/// Plain classes standing in for `@Model` types, the Strata model they map to, and the snapshots
/// of a set of instances: what the predicate tests translate against and evaluate on.
enum TripKind: String, Codable, Sendable, CaseIterable {
    case business, leisure, family
}

final class PlaceFixture: Codable, Equatable, @unchecked Sendable {
    var name: String
    var rating: Int?
    init(name: String, rating: Int?) {
        self.name = name
        self.rating = rating
    }
    static func == (a: PlaceFixture, b: PlaceFixture) -> Bool { a === b }
    /// Stands for `persistentModelID`: the naming's identifier step (place names are unique).
    var identifier: PlaceIdentifier { PlaceIdentifier(name: name) }
}

/// Stands for `PersistentIdentifier`: the object-ID hook converts it.
struct PlaceIdentifier: Codable, Hashable, Sendable {
    var name: String
}

final class ItemFixture: Codable, Equatable, @unchecked Sendable {
    var title: String
    var price: Double
    var packed: Bool
    init(title: String, price: Double, packed: Bool) {
        self.title = title
        self.price = price
        self.packed = packed
    }
    static func == (a: ItemFixture, b: ItemFixture) -> Bool { a === b }
}

final class TripFixture: @unchecked Sendable {
    var name = ""
    var days = 0
    var budget = 0.0
    var rating: Double?
    var start = Date(timeIntervalSinceReferenceDate: 0)
    var kind = TripKind.leisure
    var note: String?
    var code = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
    var link: URL?
    var blob = Data()
    var cost: Decimal = 0
    var weight: Float = 0
    var small: Int16 = 0
    var isArchived: Bool?
    var place: PlaceFixture?
    var items: [ItemFixture] = []
    /// An optional to-many, as SwiftData models often declare them: the same relationship.
    var extras: [ItemFixture]? { items }
    /// Not stored: the naming gives no name for it.
    var label: String { name.uppercased() }
}

/// The naming a model context would give: stored property names by key path.
nonisolated(unsafe) let fixtureNames: [AnyKeyPath: String] = [
    \TripFixture.name: "name", \TripFixture.days: "days", \TripFixture.budget: "budget",
    \TripFixture.rating: "rating", \TripFixture.start: "start", \TripFixture.kind: "kind",
    \TripFixture.note: "note", \TripFixture.code: "code", \TripFixture.link: "link", \TripFixture.blob: "blob",
    \TripFixture.cost: "cost", \TripFixture.weight: "weight", \TripFixture.small: "small",
    \TripFixture.isArchived: "isArchived", \TripFixture.place: "place", \TripFixture.items: "items",
    \TripFixture.extras: "items",
    \PlaceFixture.name: "name", \PlaceFixture.rating: "rating",
    \ItemFixture.title: "title", \ItemFixture.price: "price", \ItemFixture.packed: "packed",
]

func fixtureNaming(_ keyPath: AnyKeyPath) -> String? { fixtureNames[keyPath] }

/// The Strata model of the fixtures.
let fixtureModel: Model = {
    let trip = Entity(
        "Trip",
        attributes: [
            Attribute("name", .string), Attribute("days", .integer64), Attribute("budget", .double),
            Attribute("rating", .double, isOptional: true), Attribute("start", .date), Attribute("kind", .string),
            Attribute("note", .string, isOptional: true), Attribute("code", .uuid),
            Attribute("link", .uri, isOptional: true), Attribute("blob", .binary), Attribute("cost", .decimal),
            Attribute("weight", .float), Attribute("small", .integer16),
            Attribute("isArchived", .boolean, isOptional: true),
        ],
        relationships: [
            Relationship("place", to: "Place", inverse: "trips"),
            Relationship("items", to: "Item", inverse: "trip", toMany: true),
        ])
    let place = Entity(
        "Place", attributes: [Attribute("name", .string), Attribute("rating", .integer64, isOptional: true)],
        relationships: [Relationship("trips", to: "Trip", inverse: "place", toMany: true)])
    let item = Entity(
        "Item",
        attributes: [Attribute("title", .string), Attribute("price", .double), Attribute("packed", .boolean)],
        relationships: [Relationship("trip", to: "Trip", inverse: "items")])
    // The fixture model is a literal: a failure here is a broken test, reported as such.
    return try! Model(entities: [trip, place, item])
}()

/// A set of fixture objects with their snapshots, object IDs and an evaluator over them.
final class FixtureStore {
    private(set) var trips: [TripFixture] = []
    private var snapshots: [ObjectID: Snapshot] = [:]
    private var ids: [ObjectIdentifier: ObjectID] = [:]
    private var nextKey: Int64 = 1

    /// Places an identifier may name: those of `trips`, and `places`.
    private let places: [PlaceFixture]

    /// Where new object IDs come from (by entity name); by default, a counter.
    private let newID: ((String) -> ObjectID)?

    init(trips: [TripFixture], places: [PlaceFixture] = [], newID: ((String) -> ObjectID)? = nil) {
        self.trips = trips
        self.newID = newID
        self.places = places + trips.compactMap(\.place)
        for trip in trips {
            let tripID = id(of: trip, entity: "Trip")
            var placeID: ObjectID?
            if let place = trip.place {
                placeID = id(of: place, entity: "Place")
                var snapshot =
                    snapshots[placeID!]
                    ?? Snapshot(
                        objectID: placeID!, version: 1,
                        attributes: [
                            .string(place.name), place.rating.map { .integer(Int64($0)) } ?? .null,
                        ], relationships: [.toMany([])])
                if case .toMany(let existing) = snapshot.relationships[0] {
                    snapshot.relationships[0] = .toMany(existing + [tripID])
                }
                snapshots[placeID!] = snapshot
            }
            var itemIDs: [ObjectID] = []
            for item in trip.items {
                let itemID = id(of: item, entity: "Item")
                itemIDs.append(itemID)
                snapshots[itemID] = Snapshot(
                    objectID: itemID, version: 1,
                    attributes: [.string(item.title), .double(item.price), .bool(item.packed)],
                    relationships: [.toOne(tripID)])
            }
            snapshots[tripID] = Snapshot(
                objectID: tripID, version: 1,
                attributes: [
                    .string(trip.name), .integer(Int64(trip.days)), .double(trip.budget),
                    trip.rating.map(Value.double) ?? .null, .date(trip.start), .string(trip.kind.rawValue),
                    trip.note.map(Value.string) ?? .null, .uuid(trip.code), trip.link.map(Value.uri) ?? .null,
                    .binary(trip.blob), .decimal(trip.cost), .float(trip.weight), .integer(Int64(trip.small)),
                    trip.isArchived.map(Value.bool) ?? .null,
                ],
                relationships: [.toOne(placeID), .toMany(itemIDs)])
        }
    }

    /// The object ID of a fixture object (a place, an item, a trip), made on first use.
    func id(of object: AnyObject, entity: String) -> ObjectID {
        if let id = ids[ObjectIdentifier(object)] { return id }
        let id = newID?(entity) ?? ObjectID(entityName: entity, storeIdentifier: "S", primaryKey: nextKey)
        nextKey += 1
        ids[ObjectIdentifier(object)] = id
        return id
    }

    /// The object-ID hook a model context would give.
    func objectID(_ value: Any) -> ObjectID? {
        switch value {
        case let identifier as PlaceIdentifier:
            return places.first { $0.name == identifier.name }.map { id(of: $0, entity: "Place") }
        case let place as PlaceFixture: return id(of: place, entity: "Place")
        case let item as ItemFixture: return id(of: item, entity: "Item")
        case let trip as TripFixture: return id(of: trip, entity: "Trip")
        default: return nil
        }
    }

    /// `predicate` translated with the fixtures' naming and object IDs.
    func translate(_ predicate: Predicate<TripFixture>) throws -> ObjectPredicate {
        try objectPredicate(
            predicate, naming: fixtureNaming, isIdentifier: { $0 == \PlaceFixture.identifier },
            objectID: { self.objectID($0) })
    }

    /// The trips (by name) that Strata's evaluator selects with the translation of `predicate`.
    func strataMatches(_ predicate: ObjectPredicate) throws -> [String] {
        let evaluator = PredicateEvaluator(model: fixtureModel) { self.snapshots[$0] }
        return try trips.filter { trip in
            try evaluator.evaluate(predicate, on: snapshots[id(of: trip, entity: "Trip")]!)
        }.map(\.name)
    }

    /// Every object's snapshot, as a store's first save inserts them.
    var insertions: [Snapshot] {
        snapshots.values.map { snapshot in
            var inserted = snapshot
            inserted.version = 0
            return inserted
        }
    }

    /// The trips (by name, sorted) that `store` fetches with `predicate`.
    func storeMatches(_ predicate: ObjectPredicate, in store: any PersistentStore) throws -> [String] {
        var names: [ObjectID: String] = [:]
        for trip in trips { names[id(of: trip, entity: "Trip")] = trip.name }
        let result = try store.fetch(FetchRequest(entityName: "Trip", predicate: predicate, resultType: .objectIDs))
        guard case .objectIDs(let ids) = result else { return [] }
        return ids.compactMap { names[$0] }.sorted()
    }

    /// The trips (by name) in the order Strata's evaluator sorts them by `sorts`.
    func strataSorted(_ sorts: [Sort]) throws -> [String] {
        let evaluator = PredicateEvaluator(model: fixtureModel) { self.snapshots[$0] }
        var names: [ObjectID: String] = [:]
        var tripSnapshots: [Snapshot] = []
        for trip in trips {
            let id = id(of: trip, entity: "Trip")
            names[id] = trip.name
            if let snapshot = snapshots[id] { tripSnapshots.append(snapshot) }
        }
        return try evaluator.sorted(tripSnapshots, by: sorts).compactMap { names[$0.objectID] }
    }

    /// The trips (by name) that Foundation's `Predicate.evaluate` selects.
    func foundationMatches(_ predicate: Predicate<TripFixture>) throws -> [String] {
        try trips.filter { try predicate.evaluate($0) }.map(\.name)
    }
}
